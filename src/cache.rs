//! The on-disk cache of function summaries (`.oomlint_cache/`), as ruff keeps `.ruff_cache/`.
//!
//! One cache file per project root: `<cache-dir>/<oomlint version>/summaries-<key>.bin`, where
//! the key hashes the root's absolute path and the shape of the summary types. It holds, per file
//! of the project, the content hash, the module name and the summaries the file yields on its own
//! (before other files' summaries are known), and the summary table of the whole project with the
//! digest of every file's hash it was built from (with how the project reads each function that
//! returns a `repeat`, which only the whole project tells). A warm run re-parses only files whose content
//! changed; a run whose files all match takes the whole table as it is.
//!
//! Reading never fails a run: a missing, truncated, corrupt or foreign file is an empty cache. A
//! write goes to a temporary file in the same folder and is renamed over the old one.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::analysis::call_constants::CountParam;
use crate::analysis::{
    CallerReads, ElementKey, InPlaceWrites, PassedCall, Step, StepRole, SymExpr,
};
use crate::analysis::{DType, Dim, EnlargeKind, Enlarged, FunctionSummary, Placement, Shape};
use crate::source::TextRange;

/// The cache folder's name beside the configuration (or at the project root).
pub const DEFAULT_DIR: &str = ".oomlint_cache";

/// Bumped when the meaning (not only the layout) of a cached summary changes.
const FORMAT: u32 = 7;

/// The first bytes of every cache file.
const MAGIC: &[u8; 8] = b"OOMLCSH\x01";

/// `OOMLINT_NO_CACHE` set to anything but a false value (`0`, `false`, `no`, `off`, `n`, `f`,
/// empty), as `--no-cache` reads it; for the language server, which has no flags.
pub fn disabled_by_env() -> bool {
    std::env::var("OOMLINT_NO_CACHE").is_ok_and(|v| {
        !matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "" | "0" | "false" | "no" | "off" | "n" | "f"
        )
    })
}

/// A 128-bit content hash (xxh3).
pub type Hash = u128;

pub fn hash_text(text: &str) -> Hash {
    xxhash_rust::xxh3::xxh3_128(text.as_bytes())
}

/// What is kept about one file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FileEntry {
    pub hash: Hash,
    /// The module name the summaries were computed under (adding an `__init__.py` changes it).
    pub module: String,
    /// The file's own summaries (steps in other files named by their key, see [`relocate`]).
    pub summaries: Vec<FunctionSummary>,
    /// The file's calls that pass enlarged values into other files' functions.
    #[serde(default)]
    pub passed: Vec<PassedCall>,
    /// The methods of the file's classes (qualified names) that a guessed call may lead to.
    #[serde(default)]
    pub methods: Vec<String>,
    /// The file's functions that write what they are given in place.
    #[serde(default)]
    pub in_place: Vec<InPlaceWrites>,
    /// The count parameters of the file's functions that hold a finding.
    #[serde(default)]
    pub count_params: Vec<CountParam>,
}

/// The summary table of the whole project and the digest of the files it came from.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ProjectTable {
    pub digest: Hash,
    pub summaries: Vec<FunctionSummary>,
    /// How the project reads each function that returns a `repeat` (by qualified name), summed
    /// over its files once every summary was known.
    pub repeat_callers: Vec<(String, CallerReads)>,
    /// Every call of the project that passes enlarged values into another file.
    #[serde(default)]
    pub passed: Vec<PassedCall>,
    /// Every method of the project's classes that a guessed call may lead to.
    #[serde(default)]
    pub methods: Vec<String>,
    /// Every function of the project that writes what it is given in place.
    #[serde(default)]
    pub in_place: Vec<InPlaceWrites>,
    /// Count parameters every call of the project passes as 1, by qualified name.
    #[serde(default)]
    pub unit_counts: Vec<(String, Vec<String>)>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Contents {
    files: BTreeMap<String, FileEntry>,
    table: Option<ProjectTable>,
}

/// The cache of one project root, loaded (or empty) and written back with [`SummaryCache::save`].
#[derive(Debug)]
pub struct SummaryCache {
    dir: PathBuf,
    file: PathBuf,
    contents: Contents,
}

impl SummaryCache {
    /// Opens the cache of `root` in `dir`; anything unreadable is an empty cache.
    pub fn open(dir: &Path, root: &Path) -> Self {
        let file = dir
            .join(env!("CARGO_PKG_VERSION"))
            .join(format!("summaries-{:016x}.bin", key_of(root) as u64));
        let contents = std::fs::read(&file)
            .ok()
            .and_then(|bytes| decode(&bytes))
            .unwrap_or_default();
        SummaryCache {
            dir: dir.to_path_buf(),
            file,
            contents,
        }
    }

    /// The cache file (for messages and tests).
    pub fn path(&self) -> &Path {
        &self.file
    }

    /// The entry of the file with this key, if its hash and module name still match.
    pub fn file(&self, key: &str, hash: Hash, module: &str) -> Option<&FileEntry> {
        self.contents
            .files
            .get(key)
            .filter(|e| e.hash == hash && e.module == module)
    }

    /// The project table if it was built from exactly these files.
    pub fn table(&self, digest: Hash) -> Option<&ProjectTable> {
        self.contents.table.as_ref().filter(|t| t.digest == digest)
    }

    /// Replaces every file entry and the project table.
    pub fn replace(&mut self, files: BTreeMap<String, FileEntry>, table: ProjectTable) {
        self.contents = Contents {
            files,
            table: Some(table),
        };
    }

    /// Writes the cache (atomically) with a `.gitignore` of `*` in the cache folder. A failure
    /// is returned for the caller to mention; the run goes on either way.
    pub fn save(&self) -> std::io::Result<()> {
        let folder = self.file.parent().unwrap_or(&self.dir);
        std::fs::create_dir_all(folder)?;
        let ignore = self.dir.join(".gitignore");
        if !ignore.exists() {
            write_atomic(&ignore, b"# Automatically created by oomlint.\n*\n")?;
        }
        let tag = self.dir.join("CACHEDIR.TAG");
        if !tag.exists() {
            write_atomic(
                &tag,
                b"Signature: 8a477f597d28d172789f06886806bc55\n# This file is a cache directory tag created by oomlint.\n",
            )?;
        }
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&schema().to_le_bytes());
        let body = postcard::to_stdvec(&self.contents).map_err(std::io::Error::other)?;
        bytes.extend_from_slice(&hash_bytes(&body).to_le_bytes());
        bytes.extend_from_slice(&body);
        write_atomic(&self.file, &bytes)
    }
}

fn hash_bytes(bytes: &[u8]) -> Hash {
    xxhash_rust::xxh3::xxh3_128(bytes)
}

/// The contents of a cache file, or `None` when it is not one this build wrote.
fn decode(bytes: &[u8]) -> Option<Contents> {
    let rest = bytes.strip_prefix(MAGIC.as_slice())?;
    let (schema_bytes, rest) = rest.split_at_checked(16)?;
    if Hash::from_le_bytes(schema_bytes.try_into().ok()?) != schema() {
        return None;
    }
    let (sum, body) = rest.split_at_checked(16)?;
    if Hash::from_le_bytes(sum.try_into().ok()?) != hash_bytes(body) {
        return None;
    }
    postcard::from_bytes(body).ok()
}

fn key_of(root: &Path) -> Hash {
    let mut text = root.to_string_lossy().into_owned();
    text.push('\0');
    text.push_str(&schema().to_string());
    hash_bytes(text.as_bytes())
}

/// A fingerprint of the summary types: a sample summary written as JSON (field names and all),
/// with the format number. A field added to a summary type changes it, so a cache written by
/// another build of the same version is not misread.
fn schema() -> Hash {
    let step = Step {
        role: StepRole::Enlarge,
        file: Some(Arc::from("f.py")),
        range: TextRange::default(),
        code: String::new(),
        receiver: Some(TextRange::default()),
        stmt: TextRange::default(),
    };
    let sample = FunctionSummary {
        qualname: String::new(),
        element: Some(ElementKey::Index(0)),
        is_method: false,
        params: Vec::new(),
        enlarged: Some(Enlarged {
            kind: EnlargeKind::View,
            op: String::new(),
            steps: vec![step],
            shape: Some(Shape(vec![Dim::Size(SymExpr::Num(1)), Dim::Unknown])),
            receiver_code: String::new(),
            may: false,
            copy_origin: None,
            growth: Some(vec![SymExpr::Num(2)]),
            leading_sizes: Vec::new(),
        }),
        dtype: Some(DType::Bool),
        dtype_param: Some(String::new()),
        placement: Placement::Unknown,
        returns_repeat: false,
        broadcast_params: Vec::new(),
    };
    let json = serde_json::to_string(&sample).unwrap_or_default();
    hash_bytes(format!("{FORMAT}{json}").as_bytes())
}

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let folder = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let nonce = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let tmp = folder.join(format!(".{name}.{}.{nonce}.tmp", std::process::id()));
    let written = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// Rewrites the file named by every step of the values `calls` pass (as [`relocate`] does).
pub fn relocate_passed(calls: &mut [PassedCall], map: &dyn Fn(&str) -> Option<Arc<str>>) {
    for call in calls {
        let values = call
            .args
            .iter_mut()
            .flatten()
            .chain(call.keywords.iter_mut().map(|(_, v)| v));
        for step in values.flat_map(|v| v.enlarged.steps.iter_mut()) {
            if let Some(file) = &step.file
                && let Some(new) = map(file)
            {
                step.file = Some(new);
            }
        }
    }
}

/// Rewrites the file named by every step of `summaries` (`None` leaves a step as it is).
pub fn relocate(summaries: &mut [FunctionSummary], map: &dyn Fn(&str) -> Option<Arc<str>>) {
    for summary in summaries {
        let steps = summary.enlarged.iter_mut().flat_map(|e| e.steps.iter_mut());
        for step in steps {
            if let Some(file) = &step.file
                && let Some(new) = map(file)
            {
                step.file = Some(new);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_corruption() {
        let temp = tempfile::tempdir().expect("temp dir");
        let dir = temp.path().to_path_buf();
        let root = dir.join("proj");
        let mut cache = SummaryCache::open(&dir, &root);
        assert!(cache.table(1).is_none());
        let mut files = BTreeMap::new();
        files.insert(
            "a.py".to_string(),
            FileEntry {
                hash: 7,
                module: "a".into(),
                summaries: Vec::new(),
                passed: Vec::new(),
                methods: Vec::new(),
                in_place: Vec::new(),
                count_params: Vec::new(),
            },
        );
        cache.replace(
            files,
            ProjectTable {
                digest: 42,
                summaries: Vec::new(),
                repeat_callers: vec![("a.f".to_string(), CallerReads::default())],
                passed: Vec::new(),
                methods: Vec::new(),
                in_place: Vec::new(),
                unit_counts: vec![("a.f".to_string(), vec!["n".to_string()])],
            },
        );
        cache.save().expect("save");
        let again = SummaryCache::open(&dir, &root);
        assert_eq!(
            again.table(42).map(|t| t.unit_counts.clone()),
            Some(vec![("a.f".to_string(), vec!["n".to_string()])])
        );
        assert!(again.file("a.py", 7, "a").is_some());
        assert!(again.file("a.py", 8, "a").is_none());
        assert!(again.file("a.py", 7, "pkg.a").is_none());
        assert_eq!(
            std::fs::read_to_string(dir.join(".gitignore"))
                .ok()
                .as_deref(),
            Some("# Automatically created by oomlint.\n*\n")
        );
        // A flipped byte, a truncated file and a foreign file are all an empty cache.
        let path = again.path().to_path_buf();
        let good = std::fs::read(&path).expect("read");
        for bad in [
            {
                let mut b = good.clone();
                let last = b.len() - 1;
                b[last] ^= 0xff;
                b
            },
            good[..good.len() / 2].to_vec(),
            b"not a cache".to_vec(),
        ] {
            std::fs::write(&path, bad).expect("write");
            let broken = SummaryCache::open(&dir, &root);
            assert!(broken.table(42).is_none());
            assert!(broken.file("a.py", 7, "a").is_none());
        }
    }
}
