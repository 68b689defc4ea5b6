//! Hostile inputs through the built binary: broken, binary, huge, deeply nested, oddly encoded
//! and oddly placed files. Every run must end with exit code 0, 1 or 2 and never panic.
//! All files are generated in a temp dir at test time.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Output;

use crate::common::*;

const SEED: &str = "\
import torch


class Attention(torch.nn.Module):
    def forward(self, hidden_states, attn_mask, batch_size, total_seq_len):
        attn_mask = attn_mask.expand(batch_size, self.num_attention_heads, total_seq_len, -1)
        attn_mask = attn_mask.bool()
        return attn_mask
";

fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().expect("tempdir")
}

fn write_bytes(dir: &Path, rel: &str, bytes: &[u8]) {
    let path = dir.join(rel);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("create parent folder");
    }
    std::fs::write(path, bytes).expect("write file");
}

/// Runs `check ARGS --output-format json` in `dir` and asserts it ended sanely.
fn check_json(dir: &Path, args: &[&str]) -> Output {
    let mut all = vec!["check", "--isolated", "--output-format", "json"];
    all.extend_from_slice(args);
    let out = run_in(dir, &all, None);
    assert_sane(&out);
    out
}

/// Exit 0, 1 or 2 (never a panic's 101 or a signal), and no panic message.
fn assert_sane(out: &Output) {
    assert!(
        matches!(out.status.code(), Some(0..=2)),
        "exit {:?}\nstderr:\n{}",
        out.status,
        stderr(out)
    );
    let err = stderr(out);
    assert!(!err.contains("panicked"), "panic:\n{err}");
    assert!(!err.contains("stack overflow"), "stack overflow:\n{err}");
}

fn finding(file: &str, row: usize, code: &str) -> (String, usize, String) {
    (file.to_string(), row, code.to_string())
}

fn codes(o: &Output) -> Vec<String> {
    json_findings(o).into_iter().map(|(_, _, c)| c).collect()
}

#[test]
fn syntax_error_is_reported_and_other_findings_survive() {
    let dir = tempdir();
    let text = format!("{SEED}\n\ndef broken(:\n    pass\n");
    write_bytes(dir.path(), "model.py", text.as_bytes());
    let out = check_json(dir.path(), &["model.py"]);
    assert_eq!(out.status.code(), Some(1));
    let found = json_findings(&out);
    assert!(
        found.contains(&finding("model.py", 7, "OOM101")),
        "the valid finding is lost: {found:?}"
    );
    assert!(
        found.contains(&finding("model.py", 11, "OOM001")),
        "no syntax error at row 11: {found:?}"
    );
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let syntax = value
        .as_array()
        .expect("array")
        .iter()
        .find(|d| d["code"] == "OOM001")
        .expect("OOM001");
    assert_eq!(syntax["location"]["row"], 11);
    assert!(
        syntax["location"]["column"]
            .as_u64()
            .is_some_and(|c| c >= 1),
        "{syntax:#}"
    );
}

#[test]
fn syntax_error_concise_names_row_and_column() {
    let dir = tempdir();
    write_bytes(dir.path(), "bad.py", b"x = (1,\ny = 2\n");
    let out = run_in(
        dir.path(),
        &[
            "check",
            "--isolated",
            "--output-format",
            "concise",
            "bad.py",
        ],
        None,
    );
    assert_sane(&out);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.lines()
            .any(|l| l.starts_with("bad.py:") && l.contains(": error OOM001 ")),
        "{text}"
    );
}

#[test]
fn nul_bytes_do_not_crash() {
    let dir = tempdir();
    write_bytes(dir.path(), "nul.py", b"x = 1\0\ny = 2\n\0\0\0");
    let out = check_json(dir.path(), &["nul.py"]);
    // Reported as a syntax or read problem; never silently clean and never a crash.
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        codes(&out).iter().all(|c| c == "OOM001" || c == "OOM002"),
        "{}",
        stdout(&out)
    );
    // The full renderer copes with the NUL too.
    let full = run_in(dir.path(), &["check", "--isolated", "nul.py"], None);
    assert_sane(&full);
}

#[test]
fn latin1_bytes_are_an_unreadable_file_with_position() {
    let dir = tempdir();
    write_bytes(dir.path(), "latin.py", b"x = 1\ns = \"caf\xe9\"\n");
    let out = check_json(dir.path(), &["latin.py"]);
    assert_eq!(out.status.code(), Some(1));
    let found: Vec<_> = json_findings(&out).into_iter().collect();
    assert_eq!(found, vec![finding("latin.py", 2, "OOM002")]);
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(value[0]["location"]["column"], 9);
    let message = value[0]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("line 2") && message.contains("column 9"),
        "{message}"
    );
}

#[test]
fn long_flat_expression_does_not_crash() {
    let dir = tempdir();
    let terms = vec!["1"; 200_000].join(" + ");
    write_bytes(dir.path(), "long.py", format!("x = {terms}\n").as_bytes());
    let out = check_json(dir.path(), &["long.py"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(json_findings(&out).is_empty());
}

#[test]
fn long_flat_expression_in_analyzed_file_does_not_crash() {
    // Mentions `expand`, so the dataflow analysis runs over the long expression too.
    let dir = tempdir();
    let terms = vec!["1"; 200_000].join(" + ");
    let text = format!(
        "import torch\nm = torch.ones(1).expand(8, 4096, 4096)\nx = {terms}\ny = m.bool()\n"
    );
    write_bytes(dir.path(), "long.py", text.as_bytes());
    let out = check_json(dir.path(), &["long.py"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let found: Vec<_> = json_findings(&out).into_iter().collect();
    assert_eq!(found, vec![finding("long.py", 4, "OOM101")]);
}

fn nested(open: &str, inner: &str, close: &str, depth: usize) -> String {
    format!("{}{inner}{}", open.repeat(depth), close.repeat(depth))
}

#[test]
fn deep_nesting_does_not_crash() {
    let dir = tempdir();
    let cases = [
        ("parens.py", nested("(", "1", ")", 100_000)),
        ("lists.py", nested("[", "1", "]", 100_000)),
        ("mixed.py", nested("([", "1", "])", 50_000)),
        ("unclosed.py", "(".repeat(100_000)),
        (
            "parens_expand.py",
            format!(
                "import torch\nm = torch.ones(1)\nx = {}\n",
                nested("(", "m.expand(8, 8).bool()", ")", 100_000)
            ),
        ),
        (
            "lists_expand.py",
            format!(
                "import torch\nm = torch.ones(1)\nx = {}\n",
                nested("[", "m.expand(8, 8).bool()", "]", 100_000)
            ),
        ),
    ];
    for (name, text) in &cases {
        let text = if name.ends_with("expand.py") {
            text.clone()
        } else {
            format!("x = {text}\n")
        };
        write_bytes(dir.path(), name, text.as_bytes());
        let out = check_json(dir.path(), &[name]);
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{name}: exit {:?}: {}",
            out.status,
            stderr(&out)
        );
    }
    // All at once, through the folder walk and the parallel pool.
    let out = check_json(dir.path(), &["."]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn ten_megabyte_file_finishes_with_findings() {
    let dir = tempdir();
    let body = SEED.strip_prefix("import torch\n").expect("seed header");
    let mut text = String::from("import torch\n");
    let mut classes = 0;
    while text.len() < 10_000_000 {
        text.push_str(&body.replace("class Attention(", &format!("class Attention{classes}(")));
        classes += 1;
    }
    write_bytes(dir.path(), "big.py", text.as_bytes());
    let out = check_json(dir.path(), &["big.py"]);
    assert_eq!(out.status.code(), Some(0));
    let found = json_findings(&out);
    assert_eq!(found.len(), classes, "one finding per copied class");
    assert!(found.iter().all(|(f, _, c)| f == "big.py" && c == "OOM101"));
}

#[test]
fn empty_file_is_clean() {
    let dir = tempdir();
    write_bytes(dir.path(), "empty.py", b"");
    let out = run_in(dir.path(), &["check", "--isolated", "empty.py"], None);
    assert_sane(&out);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out).trim(), "All checks passed!");
    assert!(stderr(&out).trim().is_empty(), "{}", stderr(&out));
}

#[test]
fn whitespace_and_comment_only_files_are_clean() {
    let dir = tempdir();
    write_bytes(dir.path(), "blank.py", b"\n\n   \n\t\n");
    write_bytes(dir.path(), "comment.py", b"# expand bool\n");
    write_bytes(dir.path(), "no_newline.py", b"x = 1");
    let out = check_json(dir.path(), &["."]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}

#[test]
fn directory_named_like_a_python_file_is_not_a_crash() {
    let dir = tempdir();
    std::fs::create_dir_all(dir.path().join("pkg/x.py")).expect("mkdir");
    write_bytes(dir.path(), "pkg/model.py", SEED.as_bytes());
    let out = check_json(dir.path(), &["pkg"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(json_findings(&out).contains(&finding("pkg/model.py", 7, "OOM101")));
    // Named on the command line: skipped or reported, never a crash.
    let out = check_json(dir.path(), &["pkg/x.py"]);
    assert!(matches!(out.status.code(), Some(0 | 1)));
}

#[test]
fn missing_path_is_reported_and_others_are_still_linted() {
    let dir = tempdir();
    write_bytes(dir.path(), "model.py", SEED.as_bytes());
    let out = check_json(dir.path(), &["missing.py", "model.py", "missing_dir"]);
    assert_eq!(out.status.code(), Some(1));
    let found = json_findings(&out);
    let expected: BTreeSet<_> = [
        finding("missing.py", 1, "OOM002"),
        finding("missing_dir", 1, "OOM002"),
        finding("model.py", 7, "OOM101"),
    ]
    .into_iter()
    .collect();
    assert_eq!(found, expected);
}

#[test]
fn bom_prefixed_file_reports_the_same_position() {
    let dir = tempdir();
    let mut bytes = b"\xef\xbb\xbf".to_vec();
    bytes.extend_from_slice(SEED.as_bytes());
    write_bytes(dir.path(), "bom.py", &bytes);
    let out = check_json(dir.path(), &["bom.py"]);
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let found: Vec<_> = json_findings(&out).into_iter().collect();
    assert_eq!(found, vec![finding("bom.py", 7, "OOM101")]);
    assert_eq!(value[0]["location"]["column"], 31);
    let full = run_in(dir.path(), &["check", "--isolated", "bom.py"], None);
    assert_sane(&full);
    assert!(stdout(&full).contains("bom.py:7:31"), "{}", stdout(&full));
}

#[test]
fn crlf_file_reports_the_same_position() {
    let dir = tempdir();
    write_bytes(dir.path(), "crlf.py", SEED.replace('\n', "\r\n").as_bytes());
    let out = check_json(dir.path(), &["crlf.py"]);
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let found: Vec<_> = json_findings(&out).into_iter().collect();
    assert_eq!(found, vec![finding("crlf.py", 7, "OOM101")]);
    assert_eq!(value[0]["location"]["column"], 31);
    assert_eq!(value[0]["end_location"]["row"], 7);
    let full = run_in(dir.path(), &["check", "--isolated", "crlf.py"], None);
    assert_sane(&full);
    assert!(stdout(&full).contains("crlf.py:7:31"), "{}", stdout(&full));
}

#[test]
fn stdin_with_invalid_utf8_is_reported() {
    let dir = tempdir();
    let mut cmd = bin();
    cmd.current_dir(dir.path())
        .args([
            "check",
            "--isolated",
            "--output-format",
            "json",
            "--stdin-filename",
            "model.py",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().expect("spawn");
    {
        use std::io::Write;
        let mut pipe = child.stdin.take().expect("stdin");
        pipe.write_all(b"x = '\xff'\n").expect("write stdin");
    }
    let out = child.wait_with_output().expect("wait");
    assert_sane(&out);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(codes(&out), vec!["OOM002".to_string()]);
}

#[cfg(unix)]
#[test]
fn symlink_loop_does_not_hang() {
    let dir = tempdir();
    write_bytes(dir.path(), "loop/model.py", SEED.as_bytes());
    std::fs::create_dir_all(dir.path().join("loop/sub")).expect("mkdir");
    std::os::unix::fs::symlink("..", dir.path().join("loop/sub/up")).expect("symlink");
    std::os::unix::fs::symlink("self", dir.path().join("loop/self")).expect("symlink");
    std::os::unix::fs::symlink("nowhere.py", dir.path().join("loop/dangling.py")).expect("symlink");
    let out = check_json(dir.path(), &["loop"]);
    assert!(matches!(out.status.code(), Some(0 | 2)));
    assert!(
        json_findings(&out).contains(&finding("loop/model.py", 7, "OOM101")),
        "{}",
        stdout(&out)
    );
}

#[test]
fn file_over_max_file_size_is_skipped_with_a_notice() {
    let dir = tempdir();
    // A finding that would be reported if the file were read, padded past 1KiB.
    let big = format!("{SEED}{}", "# padding\n".repeat(150));
    assert!(big.len() > 1024);
    write_bytes(dir.path(), "big.py", big.as_bytes());
    write_bytes(dir.path(), "small.py", SEED.as_bytes());
    let out = check_json(
        dir.path(),
        &["--max-file-size", "1KiB", "big.py", "small.py"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let found: BTreeSet<_> = json_findings(&out).into_iter().collect();
    assert_eq!(
        found,
        BTreeSet::from([
            finding("big.py", 1, "OOM002"),
            finding("small.py", 7, "OOM101"),
        ])
    );
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let message = value
        .as_array()
        .into_iter()
        .flatten()
        .find(|d| d["code"] == "OOM002")
        .and_then(|d| d["message"].as_str())
        .unwrap_or_default()
        .to_string();
    assert_eq!(
        message,
        "file is larger than --max-file-size (1024 bytes); skipped"
    );

    // The default (50MiB) reads it.
    let out = check_json(dir.path(), &["big.py"]);
    assert_eq!(codes(&out), vec!["OOM101".to_string()], "{}", stdout(&out));

    // A bad size is a usage error (exit 2) with a one-line message.
    let out = run_in(
        dir.path(),
        &["check", "--isolated", "--max-file-size", "lots", "big.py"],
        None,
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--max-file-size"), "{}", stderr(&out));
    assert_eq!(stderr(&out).trim().lines().count(), 1, "{}", stderr(&out));
}

#[test]
fn cr_only_mixed_endings_and_tabs_report_the_same_line() {
    let dir = tempdir();
    write_bytes(dir.path(), "cr.py", SEED.replace('\n', "\r").as_bytes());
    // Every line ending in turn: LF, CRLF, CR.
    let mixed: String = SEED
        .split_inclusive('\n')
        .enumerate()
        .map(|(i, line)| match i % 3 {
            0 => line.to_string(),
            1 => line.replace('\n', "\r\n"),
            _ => line.replace('\n', "\r"),
        })
        .collect();
    write_bytes(dir.path(), "mixed.py", mixed.as_bytes());
    write_bytes(dir.path(), "tabs.py", SEED.replace("    ", "\t").as_bytes());
    let out = check_json(dir.path(), &["cr.py", "mixed.py", "tabs.py"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(
        json_findings(&out),
        BTreeSet::from([
            finding("cr.py", 7, "OOM101"),
            finding("mixed.py", 7, "OOM101"),
            finding("tabs.py", 7, "OOM101"),
        ])
    );
}

#[test]
fn hundred_thousand_line_function_is_analyzed_to_its_end() {
    let dir = tempdir();
    let mut text = String::from("import torch\n\n\ndef long_function(attn_mask, b, h, s):\n");
    for k in 0..100_000 {
        text.push_str(&format!("    v{k} = attn_mask.sum() + {k}\n"));
    }
    text.push_str("    attn_mask = attn_mask.expand(b, h, s, -1)\n    return attn_mask.float()\n");
    write_bytes(dir.path(), "long.py", text.as_bytes());
    let out = check_json(dir.path(), &["long.py"]);
    assert_eq!(
        json_findings(&out),
        BTreeSet::from([finding("long.py", 100_006, "OOM101")])
    );
}

#[test]
#[cfg(unix)]
fn unreadable_file_is_reported_and_others_are_linted() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempdir();
    write_bytes(dir.path(), "locked.py", SEED.as_bytes());
    write_bytes(dir.path(), "open.py", SEED.as_bytes());
    let locked = dir.path().join("locked.py");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).expect("chmod");
    if std::fs::read(&locked).is_ok() {
        // Running as root: permissions do not stop reads, so there is nothing to test.
        return;
    }
    let out = check_json(dir.path(), &["."]);
    assert_eq!(
        json_findings(&out),
        BTreeSet::from([
            finding("locked.py", 1, "OOM002"),
            finding("open.py", 7, "OOM101"),
        ])
    );
}

#[test]
fn files_deleted_during_the_run_never_crash_it() {
    // A race by nature: whichever files are gone when read, the run must end sanely, every
    // problem must be a one-line OOM002, and every surviving file must be linted.
    let dir = tempdir();
    let count = 600;
    for i in 0..count {
        write_bytes(dir.path(), &format!("pkg/m{i:04}.py"), SEED.as_bytes());
    }
    for mode in [&["check"][..], &["check", "--fix", "--unsafe-fixes"][..]] {
        let mut cmd = bin();
        cmd.current_dir(dir.path())
            .args(mode)
            .args([
                "--isolated",
                "--output-format",
                "json",
                "--threads",
                "2",
                "pkg",
            ])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let child = cmd.spawn().expect("spawn");
        let pkg = dir.path().join("pkg");
        for i in (0..count).step_by(2) {
            let _ = std::fs::remove_file(pkg.join(format!("m{i:04}.py")));
        }
        let out = child.wait_with_output().expect("wait");
        assert_sane(&out);
        let value: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json output");
        for d in value.as_array().expect("array") {
            let message = d["message"].as_str().unwrap_or_default();
            assert!(!message.contains('\n'), "{message}");
            if d["code"] == "OOM002" {
                assert!(message.contains("No such file"), "{message}");
            }
        }
        // Nothing deleted came back (a fix never re-creates a file that is gone).
        for i in (0..count).step_by(2) {
            assert!(
                !pkg.join(format!("m{i:04}.py")).exists(),
                "m{i:04}.py came back"
            );
        }
        let leftovers: Vec<_> = std::fs::read_dir(&pkg)
            .expect("pkg")
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
        // Restore the deleted half for the next mode.
        for i in (0..count).step_by(2) {
            write_bytes(dir.path(), &format!("pkg/m{i:04}.py"), SEED.as_bytes());
        }
    }
}
