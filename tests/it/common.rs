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
