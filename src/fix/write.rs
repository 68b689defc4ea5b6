//! Writing a fixed file: atomically (a temporary file in the same folder, flushed to disk, renamed
//! over the original), keeping its permissions, and never over a file that changed since it was
//! read or that is read-only. A symbolic link is followed: its target is fixed, the link stays.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Replaces the contents of `path` with `new_text`, if it still holds `original`.
pub fn write_fixed(path: &Path, original: &[u8], new_text: &str) -> Result<(), String> {
    let target: PathBuf = match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            fs::canonicalize(path).map_err(|e| format!("cannot resolve symbolic link: {e}"))?
        }
        Ok(_) => path.to_path_buf(),
        Err(e) => return Err(format!("cannot read file: {e}")),
    };
    let meta = fs::metadata(&target).map_err(|e| format!("cannot read file: {e}"))?;
    if meta.permissions().readonly() {
        return Err("file is read-only; not fixing it".to_string());
    }
    let current = fs::read(&target).map_err(|e| format!("cannot read file: {e}"))?;
    if current != original {
        return Err("file changed on disk since it was read; not overwriting it".to_string());
    }
    let dir = target
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = target
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("file");
    let temp = dir.join(format!(".{name}.oomlint-{}.tmp", std::process::id()));
    let result = (|| -> std::io::Result<()> {
        let mut file = fs::File::create(&temp)?;
        file.write_all(new_text.as_bytes())?;
        file.sync_all()?;
        fs::set_permissions(&temp, meta.permissions())?;
        fs::rename(&temp, &target)?;
        // Make the rename itself durable.
        if let Ok(d) = fs::File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&temp);
        return Err(format!("cannot write the fixed file: {e}"));
    }
    Ok(())
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
        assert!(err.contains("changed on disk"), "{err}");
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            "edited by someone else\n"
        );
        write_fixed(&path, b"edited by someone else\n", "fixed\n").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "fixed\n");
        fs::remove_dir_all(&dir).unwrap();
    }
}
