//! The keys that say how findings fail a run: `fail-on`, and `test-files` /
//! `extend-test-files` (a finding in a test file is a warning: test code runs small tensors).

use std::path::Path;

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::Deserialize;

/// `fail-on`: the lowest level that makes `check` exit 1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FailOn {
    /// Only errors fail the run (the default).
    #[default]
    Error,
    /// Warnings fail it too.
    Warning,
}

/// The test files unless `test-files` is set: `tests/` folders, `test_*.py`, `*_test.py` and
/// `conftest.py` (pytest's own conventions).
pub const DEFAULT_TEST_FILES: &[&str] = &["**/tests/**", "test_*.py", "*_test.py", "conftest.py"];

impl super::Settings {
    /// Is the file at `path` a test file (`test-files`), whose findings are warnings?
    pub fn is_test_file(&self, path: &Path) -> bool {
        self.test_files.is_match(&self.root, path)
    }
}

/// The globs that name test files, matched like `exclude`: by the path relative to the
/// configuration's folder, or by the file's own name.
#[derive(Debug)]
pub struct TestFiles(GlobSet);

impl TestFiles {
    /// `base` replaces the defaults when given; `extend` adds to either.
    pub fn new(base: Option<&[String]>, extend: Option<&[String]>) -> Result<Self, String> {
        let defaults: Vec<String> = DEFAULT_TEST_FILES.iter().map(|s| s.to_string()).collect();
        let mut builder = GlobSetBuilder::new();
        for pattern in base
            .unwrap_or(&defaults)
            .iter()
            .chain(extend.into_iter().flatten())
        {
            builder.add(check_glob(pattern)?);
        }
        builder
            .build()
            .map(TestFiles)
            .map_err(|e| format!("test-files: {e}"))
    }

    /// Is the file at `path` (absolute, or relative to the current folder) a test file?
    pub fn is_match(&self, root: &Path, path: &Path) -> bool {
        let abs = super::absolute(path);
        let rel = abs.strip_prefix(root).unwrap_or(&abs);
        self.0.is_match(rel)
            || path
                .file_name()
                .is_some_and(|name| self.0.is_match(Path::new(name)))
    }
}

/// A glob of `test-files`, or the message that says why it is not one.
pub fn check_glob(pattern: &str) -> Result<Glob, String> {
    Glob::new(pattern).map_err(|e| format!("invalid glob `{pattern}`: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_test_files() {
        let t = TestFiles::new(None, None).expect("defaults are globs");
        let root = Path::new("/repo");
        for yes in [
            "/repo/tests/test_model.py",
            "/repo/pkg/tests/helpers.py",
            "/repo/pkg/test_attention.py",
            "/repo/pkg/attention_test.py",
            "/repo/conftest.py",
        ] {
            assert!(t.is_match(root, Path::new(yes)), "{yes}");
        }
        for no in [
            "/repo/pkg/attention.py",
            "/repo/pkg/testing_utils.py",
            "/repo/pkg/latest.py",
            "/repo/contest.py",
        ] {
            assert!(!t.is_match(root, Path::new(no)), "{no}");
        }
    }

    #[test]
    fn configured_test_files() {
        let base = vec!["bench/*.py".to_string()];
        let extend = vec!["*_spec.py".to_string()];
        let t = TestFiles::new(Some(&base), Some(&extend)).expect("globs");
        let root = Path::new("/repo");
        assert!(t.is_match(root, Path::new("/repo/bench/run.py")));
        assert!(t.is_match(root, Path::new("/repo/pkg/model_spec.py")));
        assert!(!t.is_match(root, Path::new("/repo/tests/test_model.py")));
        assert!(TestFiles::new(Some(&["[".to_string()]), None).is_err());
    }
}
