//! Replays every input the fuzz targets (fuzz/fuzz_targets/) crashed on, stored under
//! testdata/fuzz-regressions/<target>/, through the same checks as the target. A new crash
//! input only needs to be copied there.

use std::path::{Path, PathBuf};

use oomlint::config::{Resolver, read_config_file};
use oomlint::linter::check_fix_round_trip;

fn inputs(target: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/fuzz-regressions")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.is_file());
    files.sort();
    files
}

/// Runs `check` on each input, naming the input in the panic message.
fn replay(target: &str, check: impl Fn(&[u8])) {
    for path in inputs(target) {
        let data = std::fs::read(&path).expect("read regression input");
        let name = path.display().to_string();
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&data)));
        assert!(outcome.is_ok(), "{target}: {name} fails again");
    }
}

/// The `lint_fix` target's checks (shared with the target through the library).
fn lint_fix(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let resolver = Resolver::new(None, true, Default::default()).expect("default settings");
    let settings = resolver.settings_for(Path::new("fuzz.py"));
    if let Err(e) = check_fix_round_trip(text, &settings) {
        panic!("{e}");
    }
}

/// The `evidence` target's checks: every reader returns, whatever the bytes.
fn evidence(data: &[u8]) {
    let dir = tempfile::tempdir().expect("tempdir");
    oomlint::profile::exercise_evidence_bytes(data, dir.path()).expect("write in the temp dir");
}

/// The `config` target's checks.
fn config(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    for name in ["oomlint.toml", "pyproject.toml"] {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write");
        if let Ok(Some(_)) = read_config_file(&path) {
            let _ = Resolver::new(Some(&path), true, Default::default());
        }
    }
}

#[test]
fn lint_fix_crash_inputs_replay() {
    replay("lint_fix", lint_fix);
}

#[test]
fn evidence_crash_inputs_replay() {
    replay("evidence", evidence);
}

#[test]
fn config_crash_inputs_replay() {
    replay("config", config);
}

/// Files below `dir`, recursively, sorted.
fn files_below(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("seed folder").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The seed corpora pass the same checks (they are valid inputs, so this also guards the checks
/// themselves): the committed seeds, and for `lint_fix` the fixtures scripts/fuzz.sh seeds it
/// with in place (testdata/rules, fixes, examples).
#[test]
fn seed_corpora_pass_the_fuzz_checks() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (target, check) in [
        ("lint_fix", lint_fix as fn(&[u8])),
        ("evidence", evidence),
        ("config", config),
    ] {
        let mut files = files_below(&root.join("fuzz/seeds").join(target));
        assert!(!files.is_empty(), "no seeds for {target}");
        if target == "lint_fix" {
            for dir in ["testdata/rules", "testdata/fixes", "testdata/examples"] {
                files.extend(files_below(&root.join(dir)));
            }
        }
        for path in files {
            let data = std::fs::read(&path).expect("read seed");
            check(&data);
        }
    }
}
