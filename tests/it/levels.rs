//! Levels through the built binary: what makes an error, the exit codes (`--max-warnings`,
//! `fail-on`, `--exit-zero`), test files, the seed case with and without its sizes, and the
//! words of every message (no run of spaces mid-sentence).

use std::path::Path;
use std::process::Output;

use crate::common::*;
use serde_json::Value;

/// The seed case with every dim named (the `-1` of the original keeps an unknown size).
const SEED: &str = "\
import torch


class Attention(torch.nn.Module):
    def forward(self, hidden_states, attn_mask, batch_size, total_seq_len):
        attn_mask = attn_mask.expand(batch_size, self.num_attention_heads, total_seq_len, total_seq_len)
        attn_mask = attn_mask.bool()
        return attn_mask
";

const DIMS: [&str; 6] = [
    "--dim",
    "batch_size=2",
    "--dim",
    "num_attention_heads=24",
    "--dim",
    "total_seq_len=9536",
];

fn dir_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for (rel, text) in files {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
    dir
}

fn check(dir: &Path, args: &[&str]) -> Output {
    let mut all = vec!["check", "--output-format", "json"];
    all.extend_from_slice(args);
    run_in(dir, &all, None)
}

fn levels(out: &Output) -> Vec<String> {
    let value: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("json: {e}\n{}\n{}", stdout(out), stderr(out)));
    value
        .as_array()
        .expect("array")
        .iter()
        .map(|d| d["level"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn warnings_alone_exit_0_and_an_error_exits_1() {
    let dir = dir_with(&[("model.py", SEED)]);
    let out = check(dir.path(), &["model.py"]);
    assert_eq!(levels(&out), ["warning"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut args = vec!["model.py"];
    args.extend_from_slice(&DIMS);
    let out = check(dir.path(), &args);
    assert_eq!(levels(&out), ["error"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    args.push("--exit-zero");
    assert_eq!(check(dir.path(), &args).status.code(), Some(0));
}

/// More than the device holds is an error whatever the basis: the seed at guessed sizes (4 GiB)
/// against a 64 MiB capacity; under a capacity it holds, it stays a warning.
#[test]
fn exceeding_the_capacity_is_an_error_at_guessed_sizes() {
    let dir = dir_with(&[("model.py", SEED)]);
    let out = check(dir.path(), &["model.py", "--capacity", "64MiB"]);
    assert_eq!(levels(&out), ["error"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let out = check(dir.path(), &["model.py", "--capacity", "1TiB"]);
    assert_eq!(levels(&out), ["warning"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn max_warnings_and_fail_on_make_warnings_fail() {
    let dir = dir_with(&[("model.py", SEED)]);
    let code = |args: &[&str]| check(dir.path(), args).status.code();
    assert_eq!(code(&["model.py", "--max-warnings", "1"]), Some(0));
    assert_eq!(code(&["model.py", "--max-warnings", "0"]), Some(1));
    assert_eq!(
        code(&["model.py", "--max-warnings", "0", "--exit-zero"]),
        Some(0)
    );
    std::fs::write(dir.path().join("oomlint.toml"), "fail-on = \"warning\"\n").expect("write");
    assert_eq!(code(&["model.py"]), Some(1));
    std::fs::write(dir.path().join("oomlint.toml"), "fail-on = \"error\"\n").expect("write");
    assert_eq!(code(&["model.py"]), Some(0));
}

#[test]
fn a_bad_fail_on_or_test_files_is_a_config_error() {
    let dir = dir_with(&[
        ("model.py", SEED),
        ("oomlint.toml", "fail-on = \"never\"\n"),
    ]);
    let out = check(dir.path(), &["model.py"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("oomlint.toml") && err.contains("never"),
        "{err}"
    );
    std::fs::write(dir.path().join("oomlint.toml"), "test-files = [\"[\"]\n").expect("write");
    let out = check(dir.path(), &["model.py"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("test-files"), "{}", stderr(&out));
}

#[test]
fn findings_in_test_files_are_warnings() {
    let config = "[dims]\nbatch_size = 2\nnum_attention_heads = 24\ntotal_seq_len = 9536\n";
    let dir = dir_with(&[
        ("oomlint.toml", config),
        ("pkg/model.py", SEED),
        ("tests/test_model.py", SEED),
        ("pkg/model_test.py", SEED),
        ("pkg/conftest.py", SEED),
        ("bench/run.py", SEED),
    ]);
    let out = check(dir.path(), &["."]);
    let value: Value = serde_json::from_slice(&out.stdout).expect("json");
    let mut by_file: Vec<(String, String)> = value
        .as_array()
        .expect("array")
        .iter()
        .map(|d| {
            (
                d["filename"]
                    .as_str()
                    .unwrap_or_default()
                    .replace('\\', "/"),
                d["level"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    by_file.sort();
    let want = |f: &str, l: &str| (f.to_string(), l.to_string());
    assert_eq!(
        by_file,
        [
            want("bench/run.py", "error"),
            want("pkg/conftest.py", "warning"),
            want("pkg/model.py", "error"),
            want("pkg/model_test.py", "warning"),
            want("tests/test_model.py", "warning"),
        ]
    );
    // `extend-test-files` adds a glob; `test-files` replaces the defaults.
    std::fs::write(
        dir.path().join("oomlint.toml"),
        format!("extend-test-files = [\"bench/*.py\"]\n{config}"),
    )
    .expect("write");
    let out = check(dir.path(), &["bench/run.py", "pkg/model.py"]);
    assert_eq!(levels(&out), ["warning", "error"]);
    std::fs::write(
        dir.path().join("oomlint.toml"),
        format!("test-files = [\"bench/*.py\"]\n{config}"),
    )
    .expect("write");
    let out = check(dir.path(), &["bench/run.py", "tests/test_model.py"]);
    assert_eq!(levels(&out), ["warning", "error"]);
}

#[test]
fn the_text_formats_print_the_level_and_the_summary_counts_both() {
    let dir = dir_with(&[("a.py", SEED), ("b.py", SEED)]);
    let config = "extend-test-files = [\"b.py\"]\n\
                  [dims]\nbatch_size = 2\nnum_attention_heads = 24\ntotal_seq_len = 9536\n";
    std::fs::write(dir.path().join("oomlint.toml"), config).expect("write");
    let out = run_in(
        dir.path(),
        &["check", "--output-format", "concise", "."],
        None,
    );
    let text = stdout(&out);
    assert!(text.contains("a.py:7:31: error OOM101 "), "{text}");
    assert!(text.contains("b.py:7:31: warning OOM101 "), "{text}");
    assert!(text.contains("Found 1 error and 1 warning."), "{text}");
    let out = run_in(dir.path(), &["check", "."], None);
    let text = stdout(&out);
    assert!(
        text.contains("error[OOM101]") && text.contains("warning[OOM101]"),
        "{text}"
    );
    let out = run_in(dir.path(), &["check", "--statistics", "."], None);
    let text = stdout(&out);
    assert!(
        text.contains("    1\tOOM101\tcast-after-expand\terror\n"),
        "{text}"
    );
    assert!(
        text.contains("    1\tOOM101\tcast-after-expand\twarning\n"),
        "{text}"
    );
    let out = run_in(
        dir.path(),
        &["check", "--output-format", "github", "."],
        None,
    );
    let text = stdout(&out);
    assert!(
        text.contains("::error file=a.py") && text.contains("::warning file=b.py"),
        "{text}"
    );
}

/// The bundled example: the seed is a warning at guessed sizes, an error with its sizes bound
/// (its `-1` keeps `attn_mask`'s last size, which the note names and `--dim` binds).
#[test]
fn the_example_seed_is_an_error_with_its_dims_bound() {
    let seed = |args: &[&str]| -> String {
        let mut all = vec![
            "check",
            "--isolated",
            "--output-format",
            "json",
            "testdata/examples",
        ];
        all.extend_from_slice(args);
        let out = run_in(&repo(), &all, None);
        let value: Value = serde_json::from_slice(&out.stdout).expect("json");
        value
            .as_array()
            .expect("array")
            .iter()
            .find(|d| {
                d["filename"]
                    .as_str()
                    .is_some_and(|f| f.ends_with("attention.py"))
            })
            .map(|d| d["level"].as_str().unwrap_or_default().to_string())
            .expect("the seed is reported")
    };
    assert_eq!(seed(&[]), "warning");
    let mut bound = DIMS.to_vec();
    assert_eq!(
        seed(&bound),
        "warning",
        "attn_mask.shape[-1] is still assumed"
    );
    bound.extend_from_slice(&["--dim", "attn_mask.shape[-1]=9536"]);
    assert_eq!(seed(&bound), "error");
}

/// An evidence file in no known format: one error naming it and the formats tried, exit 2.
#[test]
fn an_unknown_evidence_file_is_one_error_and_exit_2() {
    let dir = dir_with(&[("model.py", SEED), ("notes.txt", "just some words\n")]);
    for args in [
        vec!["check", "model.py", "--profile", "notes.txt"],
        vec!["profile", "notes.txt"],
    ] {
        let out = run_in(dir.path(), &args, None);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(
            err.contains("notes.txt: not a recognised evidence format"),
            "{err}"
        );
        assert!(
            err.contains("CUDA snapshot") && err.contains("OOM log"),
            "{err}"
        );
        assert!(!err.contains("no out-of-memory message"), "{err}");
    }
}

/// No message, label, help or note produced on the fixtures has a run of spaces mid-sentence
/// (a string broken across source lines without `\`) or two expressions glued together.
#[test]
fn messages_have_no_runs_of_spaces() {
    let out = run_in(
        &repo(),
        &[
            "check",
            "--isolated",
            "--select",
            "ALL",
            "--min-static-bytes",
            "0",
            "--output-format",
            "json",
            "testdata/rules",
            "testdata/examples",
        ],
        None,
    );
    let value: Value = serde_json::from_slice(&out.stdout).expect("json");
    let items = value.as_array().expect("array");
    assert!(items.len() > 50, "the fixtures report");
    let spaced = regex::Regex::new(r"\S {2,}\S").expect("regex");
    let glued = regex::Regex::new(r"\)[A-Za-z_]").expect("regex");
    for d in items {
        let mut texts: Vec<&str> = vec![d["message"].as_str().unwrap_or_default()];
        texts.extend(d["help"].as_str());
        texts.extend(
            d["notes"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str),
        );
        texts.extend(
            d["chain"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|s| s["text"].as_str()),
        );
        for text in texts {
            assert!(!spaced.is_match(text), "a run of spaces: {text:?}");
            assert!(!glued.is_match(text), "two expressions glued: {text:?}");
        }
    }
}

/// Evidence raises a measured finding to an error with the evidence-first pipeline: the buggy
/// trace measures 8 MiB at the expanded cast, a warning under the default `min-bytes` (16 MiB),
/// an error once `--min-bytes 4MiB` makes the measured bytes large.
#[test]
fn measured_bytes_over_min_bytes_make_a_certain_finding_an_error() {
    let trace = "testdata/profiles/crossattn_buggy_bs2.trace.json";
    let cast = |all: Vec<Value>| {
        all.into_iter()
            .find(|d| d["code"] == "OOM101" && d["location"]["row"] == 23)
            .expect("the measured cast")
    };
    let at_default = cast(crate::profile_own_samples::findings_with(trace, &[], 0));
    assert_eq!(at_default["evidence"]["bytes"], 8 * 1024 * 1024);
    assert_eq!(at_default["level"], "warning");
    let lowered = crate::profile_own_samples::findings_with(trace, &["--min-bytes", "4MiB"], 1);
    assert_eq!(cast(lowered)["level"], "error");
}

/// A cast of a repeated copy whose saving rests on a guess (a factor priced from its name, a
/// source of unknown dtype) is a warning whose note says on what the saving depends; one that
/// surely saves has no such note.
#[test]
fn a_saving_that_rests_on_a_guess_is_a_warning_with_its_note() {
    let out = check(
        &repo(),
        &[
            "--isolated",
            "--exit-zero",
            "testdata/rules/OOM111/positive_cast_first_saves.py",
        ],
    );
    let value: Value = serde_json::from_slice(&out.stdout).expect("json");
    let saving = |row: u64| -> (String, Option<String>) {
        let d = value
            .as_array()
            .expect("array")
            .iter()
            .find(|d| d["location"]["row"] == row)
            .unwrap_or_else(|| panic!("no finding on line {row}: {value:#}"));
        let note = d["notes"]
            .as_array()
            .expect("notes")
            .iter()
            .filter_map(|n| n.as_str())
            .find(|n| n.starts_with("saving:"))
            .map(str::to_string);
        (d["level"].as_str().unwrap_or_default().to_string(), note)
    };
    assert_eq!(saving(16).1, None);
    let (level, note) = saving(34);
    assert_eq!(level, "warning");
    assert!(
        note.as_deref()
            .is_some_and(|n| n.contains("depends on the factor `n_rep`")
                && n.contains("at most 2")),
        "{note:?}"
    );
    let (level, note) = saving(40);
    assert_eq!(level, "warning");
    assert!(
        note.as_deref()
            .is_some_and(|n| n.contains("depends on the source dtype")),
        "{note:?}"
    );
}
