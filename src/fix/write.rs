//! Writing a fixed file: atomically (a temporary file in the same folder, flushed to disk, renamed
//! over the original), keeping its permissions, and never over a file that changed since it was
//! read or that is read-only. A symbolic link is followed: its target is fixed, the link stays.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Why a fixed file was not written.
#[derive(Debug)]
pub enum WriteError {
    ReadOnly,
    /// Someone (an editor) changed the file between our read and our write.
    ChangedSinceRead,
    /// What could not be done (`cannot read file`, ...) and the error.
    Io(&'static str, std::io::Error),
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteError::ReadOnly => f.write_str("file is read-only; not fixing it"),
            WriteError::ChangedSinceRead => {
                f.write_str("file changed on disk since it was read; not overwriting it")
            }
            WriteError::Io(what, e) => write!(f, "{what}: {e}"),
        }
    }
}

impl std::error::Error for WriteError {}

/// Replaces the contents of `path` with `new_text`, if it still holds `original`.
pub fn write_fixed(path: &Path, original: &[u8], new_text: &str) -> Result<(), WriteError> {
    pause_for_tests();
    let read_error = |e| WriteError::Io("cannot read file", e);
    let target: PathBuf = match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            fs::canonicalize(path).map_err(|e| WriteError::Io("cannot resolve symbolic link", e))?
        }
        Ok(_) => path.to_path_buf(),
        Err(e) => return Err(read_error(e)),
    };
    let meta = fs::metadata(&target).map_err(read_error)?;
    if meta.permissions().readonly() {
        return Err(WriteError::ReadOnly);
    }
    let current = fs::read(&target).map_err(read_error)?;
    if current != original {
        return Err(WriteError::ChangedSinceRead);
    }
    let dir = target
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = target
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("file");
    let mut temp = PathBuf::new();
    let result = (|| -> Result<(), WriteError> {
        let io = |e| WriteError::Io("cannot write the fixed file", e);
        let mut file = create_temp(dir, name, &mut temp).map_err(io)?;
        file.write_all(new_text.as_bytes()).map_err(io)?;
        file.sync_all().map_err(io)?;
        fs::set_permissions(&temp, meta.permissions()).map_err(io)?;
        keep_owner(&file, &meta);
        // Checked again just before the rename: an editor that saved while we wrote wins.
        match fs::metadata(&target) {
            Ok(now) if same_version(&now, &meta) => {}
            _ => return Err(WriteError::ChangedSinceRead),
        }
        fs::rename(&temp, &target).map_err(io)?;
        // Make the rename itself durable.
        if let Ok(d) = fs::File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if result.is_err() && !temp.as_os_str().is_empty() {
        let _ = fs::remove_file(&temp);
    }
    result
}

/// A new temporary file next to the target (same file system, so the rename is atomic); never
/// opens an existing file.
fn create_temp(dir: &Path, name: &str, temp: &mut PathBuf) -> std::io::Result<fs::File> {
    let mut attempt = 0u32;
    loop {
        *temp = dir.join(format!(
            ".{name}.oomlint-{}-{attempt}.tmp",
            std::process::id()
        ));
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&*temp)
        {
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 100 => {
                attempt += 1;
            }
            other => return other,
        }
    }
}

/// Same length and modification time as when it was read.
fn same_version(now: &fs::Metadata, then: &fs::Metadata) -> bool {
    now.len() == then.len() && now.modified().ok() == then.modified().ok()
}

/// Gives the new file the old one's owner and group where the process may (root, or a group it
/// belongs to); otherwise the file keeps the process's, as any editor's save would.
#[cfg(unix)]
fn keep_owner(file: &fs::File, meta: &fs::Metadata) {
    use std::os::unix::fs::MetadataExt;
    if std::os::unix::fs::fchown(file, Some(meta.uid()), Some(meta.gid())).is_err() {
        let _ = std::os::unix::fs::fchown(file, None, Some(meta.gid()));
    }
}

#[cfg(not(unix))]
fn keep_owner(_: &fs::File, _: &fs::Metadata) {}

/// Debug builds only: `OOMLINT_TEST_DELAY_BEFORE_WRITE_MS` holds every write back, so an
/// end-to-end test can change a file between the read and the write.
fn pause_for_tests() {
    if cfg!(debug_assertions)
        && let Some(ms) = std::env::var("OOMLINT_TEST_DELAY_BEFORE_WRITE_MS")
            .ok()
            .and_then(|v| v.parse::<u64>().ok())
    {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_changed_since_it_was_read_is_not_overwritten() {
        let dir = std::env::temp_dir().join(format!("oomlint-write-test-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("m.py");
        fs::write(&path, "edited by someone else\n").unwrap();
        let err = write_fixed(&path, b"what we read\n", "fixed\n").unwrap_err();
        assert!(matches!(err, WriteError::ChangedSinceRead), "{err}");
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            "edited by someone else\n"
        );
        write_fixed(&path, b"edited by someone else\n", "fixed\n").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "fixed\n");
        fs::remove_dir_all(&dir).unwrap();
    }
}
