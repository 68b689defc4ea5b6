//! Helpers shared by the end-to-end tests: run the built binary, read expectations.

#![allow(dead_code)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub fn bin() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_oomlint"));
    cmd.env("NO_COLOR", "1");
    // Tests that lint files of this repository must not leave a cache in it; the tests of the
    // cache itself turn it back on in temp folders.
    cmd.env("OOMLINT_NO_CACHE", "1");
    cmd
}

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The evidence samples vendored in `testdata/samples/` (its README has their ground truth).
pub fn samples() -> PathBuf {
    repo().join("testdata/samples")
}

/// Runs the binary in `dir` with `args`, optionally feeding stdin.
pub fn run_in(dir: &Path, args: &[&str], stdin: Option<&str>) -> Output {
    let mut cmd = bin();
    cmd.current_dir(dir).args(args);
    if stdin.is_some() {
        cmd.stdin(Stdio::piped());
    }
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn oomlint");
    if let Some(input) = stdin {
        use std::io::Write;
        let mut pipe = child.stdin.take().expect("stdin");
        pipe.write_all(input.as_bytes()).expect("write stdin");
    }
    child.wait_with_output().expect("wait oomlint")
}

/// Runs `oomlint check ARGS --output-format json` in `dir`; `cache` turns the summary cache on.
pub fn check_json_in(dir: &Path, args: &[&str], cache: bool) -> Output {
    let mut cmd = bin();
    if cache {
        cmd.env_remove("OOMLINT_NO_CACHE");
    }
    cmd.current_dir(dir)
        .arg("check")
        .args(args)
        .args(["--output-format", "json"]);
    cmd.output().expect("run oomlint")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// (file, row, code) triples from JSON output.
pub fn json_findings(o: &Output) -> BTreeSet<(String, usize, String)> {
    let value: serde_json::Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("json output: {e}\n{}\n{}", stdout(o), stderr(o)));
    value
        .as_array()
        .expect("array")
        .iter()
        .map(|d| {
            (
                d["filename"]
                    .as_str()
                    .unwrap_or_default()
                    .replace('\\', "/"),
                d["location"]["row"].as_u64().unwrap_or_default() as usize,
                d["code"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// Expectations written in a fixture as `# expect: OOM101, OOM104` at the end of a line.
pub fn expectations(file: &Path, display: &str) -> BTreeSet<(String, usize, String)> {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let mut out = BTreeSet::new();
    for (i, line) in text.lines().enumerate() {
        if let Some(pos) = line.find("# expect:") {
            for code in line[pos + 9..]
                .split([',', ' '])
                .map(str::trim)
                .filter(|c| c.starts_with("OOM"))
            {
                out.insert((display.to_string(), i + 1, code.to_string()));
            }
        }
    }
    out
}

/// All `.py` files below `dir`, sorted.
pub fn python_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "py") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The `# expect:` comments of every file of the project folder `project` (relative to the
/// repository), named as `display_root/<path inside the project>` (or the bare inside path when
/// `display_root` is empty), as the binary names them when run from that root.
pub fn project_expectations(
    project: &str,
    display_root: &str,
) -> BTreeSet<(String, usize, String)> {
    let root = repo().join(project);
    let mut out = BTreeSet::new();
    for file in python_files(&root) {
        let rel = file
            .strip_prefix(&root)
            .expect("inside the project")
            .to_string_lossy()
            .replace('\\', "/");
        let display = if display_root.is_empty() {
            rel
        } else {
            format!("{display_root}/{rel}")
        };
        out.extend(expectations(&file, &display));
    }
    out
}

/// `check_json_in` that fails the test unless the run exited 0 or 1 (findings or none).
pub fn check_json_ok(dir: &Path, args: &[&str], cache: bool) -> Output {
    let out = check_json_in(dir, args, cache);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    out
}

/// Copies the folder `from` and everything below it into `to` (created when missing).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read dir").flatten() {
        let path = entry.path();
        let target = to.join(entry.file_name());
        if path.is_dir() {
            copy_tree(&path, &target);
        } else {
            std::fs::copy(&path, &target).expect("copy");
        }
    }
}

/// A temporary copy of the project folder `project` (relative to the repository); keep the
/// `TempDir` alive while the path is used.
pub fn project_copy(project: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    copy_tree(&repo().join(project), dir.path());
    let path = dir.path().to_path_buf();
    (dir, path)
}
