//! End-to-end tests of the command line through the built binary: output formats, flags, exit
//! codes, configuration discovery, suppression comments and deterministic output.

use std::path::Path;
use std::process::Output;

use crate::common::*;

/// The seed case: an attention mask expanded (free view) and then cast (full-size write).
const SEED: &str = "\
import torch


class Attention(torch.nn.Module):
    def forward(self, hidden_states, attn_mask, batch_size, total_seq_len):
        attn_mask = attn_mask.expand(batch_size, self.num_attention_heads, total_seq_len, -1)
        attn_mask = attn_mask.bool()
        return attn_mask
";

/// The fixed seed: cast first, then expand. Nothing to report.
const SWAPPED: &str = "\
import torch


class Attention(torch.nn.Module):
    def forward(self, hidden_states, attn_mask, batch_size, total_seq_len):
        attn_mask = attn_mask.bool()
        attn_mask = attn_mask.expand(batch_size, self.num_attention_heads, total_seq_len, -1)
        return attn_mask
";

const EXPAND_LINE: &str =
    "        attn_mask = attn_mask.expand(batch_size, self.num_attention_heads, total_seq_len, -1)";
const CAST_LINE: &str = "        attn_mask = attn_mask.bool()";

const DIMS: [&str; 6] = [
    "--dim",
    "batch_size=2",
    "--dim",
    "num_attention_heads=24",
    "--dim",
    "total_seq_len=9536",
];

/// The seed with every expanded dim bound by name, so `--dim` can turn it into bytes.
fn seed_all_named() -> String {
    SEED.replace("total_seq_len, -1)", "total_seq_len, total_seq_len)")
}

fn write(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("create parent folder");
    }
    std::fs::write(path, text).expect("write file");
}

fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().expect("tempdir")
}

/// A temp dir holding the seed case as `model.py`.
fn seed_dir() -> tempfile::TempDir {
    let dir = tempdir();
    write(dir.path(), "model.py", SEED);
    dir
}

fn code(o: &Output) -> Option<i32> {
    o.status.code()
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("json output: {e}\n{}\n{}", stdout(o), stderr(o)))
}

fn finding(file: &str, row: usize, code: &str) -> (String, usize, String) {
    (file.to_string(), row, code.to_string())
}

/// Asserts the usual invariants of a successful run and returns its findings.
fn findings(dir: &Path, args: &[&str]) -> std::collections::BTreeSet<(String, usize, String)> {
    let mut all = vec!["check", "--output-format", "json"];
    all.extend_from_slice(args);
    let out = run_in(dir, &all, None);
    assert!(
        matches!(code(&out), Some(0 | 1)),
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        stdout(&out),
        stderr(&out)
    );
    json_findings(&out)
}

// ---------------------------------------------------------------- the seed case and its formats

#[test]
fn seed_case_gives_one_oom101_at_the_cast() {
    let dir = seed_dir();
    let out = run_in(
        dir.path(),
        &["check", "model.py", "--output-format", "json"],
        None,
    );
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    let found: Vec<_> = json_findings(&out).into_iter().collect();
    assert_eq!(found, vec![finding("model.py", 7, "OOM101")]);
    let value = json(&out);
    assert_eq!(value.as_array().map(Vec::len), Some(1));
    assert_eq!(value[0]["location"]["column"], 31);
}

#[test]
fn swapped_seed_case_is_clean() {
    let dir = tempdir();
    write(dir.path(), "model.py", SWAPPED);
    let out = run_in(dir.path(), &["check", "model.py"], None);
    assert_eq!(code(&out), Some(0), "{}{}", stdout(&out), stderr(&out));
    assert!(
        stdout(&out).contains("All checks passed!"),
        "{}",
        stdout(&out)
    );
    assert!(!stdout(&out).contains("OOM"), "{}", stdout(&out));
}

#[test]
fn full_output_labels_the_expand_and_the_cast() {
    let dir = seed_dir();
    let out = run_in(
        dir.path(),
        &["check", "model.py", "--output-format", "full"],
        None,
    );
    assert_eq!(code(&out), Some(0));
    let text = stdout(&out);
    assert!(text.contains("warning[OOM101]"), "{text}");
    assert!(text.contains("model.py:7:31"), "{text}");
    assert!(
        !text.contains('\u{1b}'),
        "NO_COLOR output has escapes:\n{text}"
    );

    let lines: Vec<&str> = text.lines().collect();
    let frame = |n: char, source: &str| {
        lines
            .iter()
            .position(|l| l.starts_with(n) && l.contains('│') && l.ends_with(source))
            .unwrap_or_else(|| panic!("no frame line {n} with `{source}`:\n{text}"))
    };
    let expand_at = frame('6', EXPAND_LINE);
    let cast_at = frame('7', CAST_LINE);
    assert!(expand_at < cast_at, "line 6 shown after line 7:\n{text}");

    // The `---` label sits under `expand(...)`, the `^^^` label under `bool()`.
    let under = |at: usize, mark: char, word: &str| {
        let source = lines[at];
        let label = lines
            .get(at + 1)
            .unwrap_or_else(|| panic!("no label line after `{source}`"));
        let col = source.find(word).expect("word in frame line");
        let mark_col = label
            .find(mark)
            .unwrap_or_else(|| panic!("no `{mark}` under `{source}`:\n{text}"));
        assert_eq!(mark_col, col, "label misplaced:\n{source}\n{label}");
        let run = label[mark_col..].chars().take_while(|c| *c == mark).count();
        (run, label.to_string())
    };
    let (dashes, expand_label) = under(expand_at, '-', "expand(");
    assert_eq!(
        dashes,
        "expand(batch_size, self.num_attention_heads, total_seq_len, -1)".len()
    );
    assert!(expand_label.contains("expand"), "{expand_label}");
    let (carets, cast_label) = under(cast_at, '^', "bool()");
    assert_eq!(carets, "bool()".len());
    assert!(cast_label.contains("writes every element"), "{cast_label}");
}

#[test]
fn concise_output_is_one_line_per_finding() {
    let dir = seed_dir();
    let out = run_in(
        dir.path(),
        &["check", "model.py", "--output-format", "concise"],
        None,
    );
    assert_eq!(code(&out), Some(0));
    let text = stdout(&out);
    let first = text.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("model.py:7:31: warning OOM101 "),
        "unexpected concise line: {text}"
    );
    assert_eq!(
        text.lines().filter(|l| l.contains("OOM")).count(),
        1,
        "{text}"
    );
}

#[test]
fn json_schema_has_the_documented_keys_and_chain() {
    let dir = seed_dir();
    let out = run_in(
        dir.path(),
        &["check", "model.py", "--output-format", "json"],
        None,
    );
    let value = json(&out);
    let d = &value[0];
    for key in [
        "code",
        "message",
        "filename",
        "location",
        "end_location",
        "fix",
        "noqa_row",
        "url",
        "chain",
        "evidence",
    ] {
        assert!(d.get(key).is_some(), "missing key `{key}` in {d:#}");
    }
    assert_eq!(d["code"], "OOM101");
    assert_eq!(d["filename"], "model.py");
    assert_eq!(d["location"]["row"], 7);
    assert_eq!(d["location"]["column"], 31);
    assert_eq!(d["end_location"]["row"], 7);
    assert!(d["message"].as_str().is_some_and(|m| !m.is_empty()));
    // The seed returns the mask, so swapping the statements is offered as an unsafe fix.
    assert_eq!(d["fix"]["applicability"], "unsafe", "{d:#}");
    let edits = d["fix"]["edits"].as_array().expect("edits");
    assert_eq!(edits.len(), 2, "{d:#}");
    assert_eq!(
        edits[0]["content"],
        "        attn_mask = attn_mask.bool()\n"
    );
    assert_eq!(edits[0]["location"]["row"], 6);
    assert_eq!(edits[1]["location"]["row"], 7);
    assert_eq!(edits[1]["end_location"]["row"], 8);
    assert!(d["evidence"].is_null(), "{d:#}");
    assert_eq!(d["noqa_row"], 7);
    assert!(
        d["url"].as_str().is_some_and(|u| u.contains("OOM101")),
        "{d:#}"
    );
    let chain = d["chain"].as_array().expect("chain is a list");
    for step in chain {
        for key in ["role", "filename", "location", "end_location", "text"] {
            assert!(
                step.get(key).is_some(),
                "chain step lacks `{key}`: {step:#}"
            );
        }
    }
    let has = |role: &str, row: u64| {
        chain.iter().any(|s| {
            s["role"] == role && s["location"]["row"] == row && s["filename"] == "model.py"
        })
    };
    assert!(has("enlarge", 6), "no enlarge step at row 6: {d:#}");
    assert!(has("sink", 7), "no sink step at row 7: {d:#}");
}

// ---------------------------------------------------------------------------------- flags

#[test]
fn exit_zero_keeps_the_findings_but_exits_0() {
    let dir = seed_dir();
    let out = run_in(
        dir.path(),
        &[
            "check",
            "model.py",
            "--exit-zero",
            "--output-format",
            "json",
        ],
        None,
    );
    assert_eq!(code(&out), Some(0));
    assert_eq!(json_findings(&out).len(), 1);
}

#[test]
fn statistics_counts_per_rule() {
    let dir = seed_dir();
    let out = run_in(dir.path(), &["check", "model.py", "--statistics"], None);
    assert_eq!(code(&out), Some(0));
    let text = stdout(&out);
    let line = text
        .lines()
        .find(|l| l.contains("OOM101"))
        .unwrap_or_else(|| panic!("no OOM101 line in statistics:\n{text}"));
    assert!(
        line.split_whitespace().next() == Some("1"),
        "count missing: {line}"
    );
}

#[test]
fn output_file_receives_the_report_and_stdout_stays_empty() {
    let dir = seed_dir();
    let plain = run_in(
        dir.path(),
        &["check", "model.py", "--output-format", "json"],
        None,
    );
    let out = run_in(
        dir.path(),
        &[
            "check",
            "model.py",
            "--output-format",
            "json",
            "-o",
            "report.json",
        ],
        None,
    );
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    assert!(out.stdout.is_empty(), "stdout: {}", stdout(&out));
    let written = std::fs::read(dir.path().join("report.json")).expect("report written");
    assert_eq!(written, plain.stdout);
}

#[test]
fn select_and_ignore_filter_rules() {
    let dir = seed_dir();
    for args in [
        ["--select", "OOM102"],
        ["--ignore", "OOM101"],
        ["--select", "OOM11"],
    ] {
        let out = run_in(
            dir.path(),
            &[
                "check",
                "model.py",
                args[0],
                args[1],
                "--output-format",
                "json",
            ],
            None,
        );
        assert_eq!(code(&out), Some(0), "{args:?}: {}", stdout(&out));
        assert!(json_findings(&out).is_empty(), "{args:?}");
    }
    for args in [
        ["--select", "OOM101"],
        ["--select", "OOM1"],
        ["--select", "ALL"],
    ] {
        let out = run_in(
            dir.path(),
            &[
                "check",
                "model.py",
                args[0],
                args[1],
                "--output-format",
                "json",
            ],
            None,
        );
        assert_eq!(code(&out), Some(0), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn unknown_selector_is_a_usage_error() {
    let dir = seed_dir();
    for flag in ["--select", "--ignore", "--extend-select"] {
        let out = run_in(dir.path(), &["check", "model.py", flag, "OOM999"], None);
        assert_eq!(code(&out), Some(2), "{flag}");
        let err = stderr(&out);
        assert_eq!(err.trim().lines().count(), 1, "{flag}: {err}");
        assert!(err.contains("OOM999"), "{flag}: {err}");
        assert!(out.stdout.is_empty(), "{flag}: {}", stdout(&out));
    }
}

#[test]
fn stdin_filename_lints_stdin_as_that_file() {
    let dir = tempdir();
    let out = run_in(
        dir.path(),
        &[
            "check",
            "--stdin-filename",
            "model.py",
            "--output-format",
            "concise",
        ],
        Some(SEED),
    );
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("model.py:7:31: warning OOM101"),
        "{}",
        stdout(&out)
    );
    let clean = run_in(
        dir.path(),
        &["check", "--stdin-filename", "model.py"],
        Some(SWAPPED),
    );
    assert_eq!(code(&clean), Some(0), "{}", stdout(&clean));
}

#[test]
fn dims_turn_the_size_into_bytes() {
    let dir = tempdir();
    write(dir.path(), "model.py", &seed_all_named());
    let mut args = vec!["check", "model.py", "--output-format", "full"];
    args.extend_from_slice(&DIMS);
    let out = run_in(dir.path(), &args, None);
    assert_eq!(code(&out), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("x 1 B (bool) = 4.07 GiB at batch_size=2 (--dim)"),
        "{text}"
    );
    assert!(!text.contains("assumed"), "{text}");

    // Without the dims the size is priced at the role defaults, and says so.
    let assumed = run_in(
        dir.path(),
        &["check", "model.py", "--output-format", "full"],
        None,
    );
    let text = stdout(&assumed);
    assert!(
        text.contains("= a guess of 4.00 GiB at batch_size=8 (guessed batch), num_attention_heads=32 (guessed heads), total_seq_len=4096 (guessed sequence)"),
        "{text}"
    );
}

/// The bar: the seed case is one OOM101 with a byte figure; with the three named dims
/// bound, the figure uses them and names the one dim it had to assume (the `-1`).
#[test]
fn seed_case_has_a_byte_figure_naming_the_assumed_dim() {
    let dir = seed_dir();
    let out = run_in(
        dir.path(),
        &["check", "model.py", "--output-format", "json"],
        None,
    );
    let items: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let items = items.as_array().expect("list");
    assert_eq!(items.len(), 1, "{items:?}");
    assert_eq!(items[0]["code"], "OOM101");
    assert!(
        items[0]["size"]["bytes"]
            .as_u64()
            .is_some_and(|b| b >= 1 << 28),
        "{items:?}"
    );

    let mut args = vec!["check", "model.py", "--output-format", "json"];
    args.extend_from_slice(&[
        "--dim",
        "batch_size=3",
        "--dim",
        "num_attention_heads=24",
        "--dim",
        "total_seq_len=9536",
    ]);
    let out = run_in(dir.path(), &args, None);
    let items: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let items = items.as_array().expect("list");
    assert_eq!(items.len(), 1, "{items:?}");
    let size = &items[0]["size"];
    assert_eq!(size["bytes"], 3 * 24 * 9536 * 512, "{size}");
    assert_eq!(size["dtype"], "bool");
    let sources: Vec<(String, String)> = size["dims"]
        .as_array()
        .expect("dims")
        .iter()
        .flat_map(|d| d["sources"].as_array().cloned().unwrap_or_default())
        .map(|s| {
            (
                s["name"].as_str().unwrap_or("").to_string(),
                s["source"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let assumed: Vec<&str> = sources
        .iter()
        .filter(|(_, s)| s == "assumed")
        .map(|(n, _)| n.as_str())
        .collect();
    assert_eq!(assumed, ["attn_mask.shape[-1]"], "{size}");
    let note = items[0]["notes"][0].as_str().expect("note");
    assert_eq!(
        note,
        "size: [batch_size, num_attention_heads, total_seq_len, attn_mask.shape[-1]] x 1 B (bool), no total: attn_mask.shape[-1] has no stated size (bind with --dim or [tool.oomlint.dims]); batch_size=3 (--dim), num_attention_heads=24 (--dim), total_seq_len=9536 (--dim)"
    );
}

#[test]
fn bad_dim_is_a_usage_error() {
    let dir = seed_dir();
    for bad in ["bad", "batch_size=", "batch_size=x", "batch_size=0", "=3"] {
        let out = run_in(dir.path(), &["check", "model.py", "--dim", bad], None);
        assert_eq!(code(&out), Some(2), "--dim {bad}: {}", stdout(&out));
        assert!(!stderr(&out).trim().is_empty(), "--dim {bad}");
        assert!(out.stdout.is_empty(), "--dim {bad}: {}", stdout(&out));
    }
}

/// A latent-size mask is left out at the latent default (64) and reported, with the role named,
/// when the latent role is bound to image-sized sides.
#[test]
fn latent_sides_take_the_latent_role_and_its_binding() {
    let dir = tempdir();
    write(
        dir.path(),
        "pipeline.py",
        "def mask(attn_mask, original_latents, attn_map):\n    b, latent_channel, latent_h, latent_w = original_latents.shape\n    m = attn_mask.reshape(b, 1, latent_h, latent_w).repeat(1, latent_channel, 1, 1)\n    return m.type(attn_map.dtype)\n",
    );
    let quiet = run_in(
        dir.path(),
        &[
            "check",
            "pipeline.py",
            "--isolated",
            "--output-format",
            "json",
        ],
        None,
    );
    assert_eq!(code(&quiet), Some(0), "{}", stdout(&quiet));
    let (note, _) = size_of_one(dir.path(), &["--dim", "latent=512"]);
    assert!(
        note.contains("latent_channel=latent_h=latent_w=512 (latent from --dim)"),
        "{note}"
    );
    let (note, _) = size_of_one(dir.path(), &["--min-static-bytes", "0"]);
    assert!(
        note.contains("= a guess of 8.00 MiB at b=8 (guessed batch), latent_channel=latent_h=latent_w=64 (guessed latent)"),
        "{note}"
    );
}

#[test]
fn no_subcommand_means_check() {
    let dir = seed_dir();
    let implicit = run_in(
        dir.path(),
        &["model.py", "--output-format", "concise"],
        None,
    );
    let explicit = run_in(
        dir.path(),
        &["check", "model.py", "--output-format", "concise"],
        None,
    );
    assert_eq!(code(&implicit), Some(0), "{}", stderr(&implicit));
    assert_eq!(implicit.stdout, explicit.stdout);

    // No arguments at all: lint the current folder.
    let bare = run_in(dir.path(), &[], None);
    assert_eq!(code(&bare), Some(0), "{}", stderr(&bare));
    assert!(stdout(&bare).contains("OOM101"), "{}", stdout(&bare));
}

#[test]
fn version_exits_0() {
    let dir = tempdir();
    let out = run_in(dir.path(), &["--version"], None);
    assert_eq!(code(&out), Some(0));
    assert!(stdout(&out).starts_with("oomlint "), "{}", stdout(&out));
}

// ---------------------------------------------------------------------------- configuration

#[test]
fn pyproject_ignore_silences_the_rule() {
    let dir = seed_dir();
    write(
        dir.path(),
        "pyproject.toml",
        "[tool.oomlint]\nignore = [\"OOM101\"]\n",
    );
    let out = run_in(dir.path(), &["check", "model.py"], None);
    assert_eq!(code(&out), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains("All checks passed!"));
}

#[test]
fn pyproject_without_tool_section_is_ignored() {
    let dir = seed_dir();
    write(dir.path(), "pyproject.toml", "[project]\nname = \"x\"\n");
    assert_eq!(
        findings(dir.path(), &["model.py"])
            .into_iter()
            .collect::<Vec<_>>(),
        vec![finding("model.py", 7, "OOM101")]
    );
}

#[test]
fn closest_config_file_wins() {
    let dir = seed_dir();
    write(dir.path(), "sub/model.py", SEED);
    write(
        dir.path(),
        "pyproject.toml",
        "[tool.oomlint]\nignore = [\"OOM101\"]\n",
    );
    write(dir.path(), "sub/oomlint.toml", "select = [\"OOM1\"]\n");
    let found: Vec<_> = findings(dir.path(), &[]).into_iter().collect();
    assert_eq!(found, vec![finding("sub/model.py", 7, "OOM101")]);

    // `.oomlint.toml` counts too.
    std::fs::remove_file(dir.path().join("sub/oomlint.toml")).expect("remove");
    write(dir.path(), "sub/.oomlint.toml", "select = [\"OOM1\"]\n");
    let found: Vec<_> = findings(dir.path(), &[]).into_iter().collect();
    assert_eq!(found, vec![finding("sub/model.py", 7, "OOM101")]);
}

#[test]
fn unknown_config_key_is_an_error_naming_file_and_key() {
    let dir = seed_dir();
    write(
        dir.path(),
        "pyproject.toml",
        "[tool.oomlint]\nselekt = [\"OOM101\"]\n",
    );
    let out = run_in(dir.path(), &["check", "model.py"], None);
    assert_eq!(code(&out), Some(2), "{}", stdout(&out));
    let err = stderr(&out);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("pyproject.toml"), "{err}");
    assert!(err.contains("selekt"), "{err}");
}

#[test]
fn bad_config_value_is_an_error() {
    let dir = seed_dir();
    write(dir.path(), "oomlint.toml", "select = \"OOM101\"\n");
    let out = run_in(dir.path(), &["check", "model.py"], None);
    assert_eq!(code(&out), Some(2), "{}", stdout(&out));
    let err = stderr(&out);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("oomlint.toml"), "{err}");
    assert!(err.contains("expected a sequence"), "{err}");
}

#[test]

fn bad_config_value_error_names_the_key() {
    let dir = seed_dir();
    write(
        dir.path(),
        "pyproject.toml",
        "[tool.oomlint]\nrespect-gitignore = 1\n",
    );
    let out = run_in(dir.path(), &["check", "model.py"], None);
    assert_eq!(code(&out), Some(2), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(err.contains("respect-gitignore"), "{err}");
}

const PER_FILE_IGNORES: &str = "[tool.oomlint]\nper-file-ignores = {\"tests/*\" = [\"OOM101\"]}\n";

#[test]
fn per_file_ignores_match_relative_to_the_config() {
    let dir = seed_dir();
    write(dir.path(), "tests/model.py", SEED);
    write(dir.path(), "pyproject.toml", PER_FILE_IGNORES);
    let expected = vec![finding("model.py", 7, "OOM101")];
    let found: Vec<_> = findings(dir.path(), &["model.py", "tests"])
        .into_iter()
        .collect();
    assert_eq!(found, expected);
    let found: Vec<_> = findings(dir.path(), &["model.py", "tests/model.py"])
        .into_iter()
        .collect();
    assert_eq!(found, expected);
    // An absolute path is matched relative to the config's folder too.
    let abs = dir.path().join("tests/model.py");
    let found = findings(dir.path(), &[abs.to_str().expect("utf-8 path")]);
    assert!(found.is_empty(), "{found:?}");
}

#[test]

fn per_file_ignores_apply_when_walking_the_current_folder() {
    let dir = seed_dir();
    write(dir.path(), "tests/model.py", SEED);
    write(dir.path(), "pyproject.toml", PER_FILE_IGNORES);
    let expected = vec![finding("model.py", 7, "OOM101")];
    let found: Vec<_> = findings(dir.path(), &[]).into_iter().collect();
    assert_eq!(found, expected, "oomlint check (default path .)");
    let found: Vec<_> = findings(dir.path(), &["."]).into_iter().collect();
    assert_eq!(found, expected, "oomlint check .");
}

#[test]
fn exclude_skips_a_folder_when_walking() {
    let dir = seed_dir();
    write(dir.path(), "generated/model.py", SEED);
    write(
        dir.path(),
        "pyproject.toml",
        "[tool.oomlint]\nexclude = [\"generated\"]\n",
    );
    let found: Vec<_> = findings(dir.path(), &[]).into_iter().collect();
    assert_eq!(found, vec![finding("model.py", 7, "OOM101")]);
    let found: Vec<_> = findings(dir.path(), &["."]).into_iter().collect();
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(!found[0].0.contains("generated"), "{found:?}");
}

#[test]
fn build_copies_and_notebook_checkpoints_are_not_walked() {
    // A wheel or `setup.py build` leaves a copy of the sources in `build/lib/`, and Jupyter a copy
    // of each notebook in `.ipynb_checkpoints/`: ruff's default excludes skip both.
    let dir = seed_dir();
    write(dir.path(), "build/lib/pkg/model.py", SEED);
    write(dir.path(), ".ipynb_checkpoints/model-checkpoint.py", SEED);
    write(dir.path(), "builder/model.py", SEED);
    let found = findings(dir.path(), &[]);
    let want: std::collections::BTreeSet<_> = [
        finding("model.py", 7, "OOM101"),
        finding("builder/model.py", 7, "OOM101"),
    ]
    .into_iter()
    .collect();
    assert_eq!(found, want);
    // `exclude = []` replaces the defaults: the build copy is walked again.
    write(
        dir.path(),
        "pyproject.toml",
        "[tool.oomlint]\nexclude = []\n",
    );
    let found: Vec<_> = findings(dir.path(), &[]).into_iter().collect();
    assert!(
        found.contains(&finding("build/lib/pkg/model.py", 7, "OOM101")),
        "{found:?}"
    );
}

#[test]
fn explicit_files_are_linted_unless_force_exclude() {
    let dir = seed_dir();
    write(dir.path(), "skipped.py", SEED);
    write(dir.path(), ".gitignore", "skipped.py\n");

    // Walking the folder honours .gitignore (no git repository needed).
    let found: Vec<_> = findings(dir.path(), &[]).into_iter().collect();
    assert_eq!(found, vec![finding("model.py", 7, "OOM101")]);

    // Naming the file lints it anyway.
    let found: Vec<_> = findings(dir.path(), &["skipped.py"]).into_iter().collect();
    assert_eq!(found, vec![finding("skipped.py", 7, "OOM101")]);

    // A config exclude applies to named files only with --force-exclude.
    write(
        dir.path(),
        "pyproject.toml",
        "[tool.oomlint]\nexclude = [\"skipped.py\"]\n",
    );
    let found: Vec<_> = findings(dir.path(), &["skipped.py"]).into_iter().collect();
    assert_eq!(found, vec![finding("skipped.py", 7, "OOM101")]);
    let out = run_in(
        dir.path(),
        &[
            "check",
            "skipped.py",
            "--force-exclude",
            "--output-format",
            "json",
        ],
        None,
    );
    assert_eq!(code(&out), Some(0), "{}{}", stdout(&out), stderr(&out));
    assert!(json_findings(&out).is_empty());
    // --force-exclude leaves files that are not excluded alone.
    let found: Vec<_> = findings(dir.path(), &["model.py", "skipped.py", "--force-exclude"])
        .into_iter()
        .collect();
    assert_eq!(found, vec![finding("model.py", 7, "OOM101")]);
}

#[test]
fn isolated_ignores_config_files() {
    let dir = seed_dir();
    write(
        dir.path(),
        "pyproject.toml",
        "[tool.oomlint]\nignore = [\"OOM101\"]\n",
    );
    let found: Vec<_> = findings(dir.path(), &["model.py", "--isolated"])
        .into_iter()
        .collect();
    assert_eq!(found, vec![finding("model.py", 7, "OOM101")]);
    // Even a broken config is not read.
    write(dir.path(), "pyproject.toml", "[tool.oomlint]\nselekt = 1\n");
    let found: Vec<_> = findings(dir.path(), &["model.py", "--isolated"])
        .into_iter()
        .collect();
    assert_eq!(found.len(), 1);
}

#[test]
fn explicit_config_file_applies_to_every_file() {
    let dir = seed_dir();
    write(dir.path(), "sub/model.py", SEED);
    write(dir.path(), "sub/oomlint.toml", "select = [\"OOM1\"]\n");
    write(dir.path(), "quiet.toml", "ignore = [\"OOM101\"]\n");
    let out = run_in(
        dir.path(),
        &["check", "--config", "quiet.toml", "--output-format", "json"],
        None,
    );
    assert_eq!(code(&out), Some(0), "{}{}", stdout(&out), stderr(&out));
}

#[test]
fn dims_from_config_give_bytes() {
    for config in [
        "[tool.oomlint]\ndims = {batch_size = 2, num_attention_heads = 24, total_seq_len = 9536}\n",
        "[tool.oomlint.dims]\nbatch_size = 2\nnum_attention_heads = 24\ntotal_seq_len = 9536\n",
    ] {
        let dir = tempdir();
        write(dir.path(), "model.py", &seed_all_named());
        write(dir.path(), "pyproject.toml", config);
        let out = run_in(
            dir.path(),
            &["check", "model.py", "--output-format", "full"],
            None,
        );
        assert_eq!(code(&out), Some(1), "{config}: {}", stderr(&out));
        let text = stdout(&out);
        assert!(
            text.contains("= 4.07 GiB at batch_size=2 (config pyproject.toml)"),
            "{config}:\n{text}"
        );
    }
}

#[test]
fn config_name_and_role_keys_state_their_basis() {
    // A role key of the config sizes every dim of that role; a name key beats it; a `--dim`
    // beats both; each number says where it came from, and the total is then a fact.
    let dir = tempdir();
    write(dir.path(), "model.py", &seed_all_named());
    write(
        dir.path(),
        "pyproject.toml",
        "[tool.oomlint.dims]\nbatch_size = 2\nbatch = 64\nsequence = 8192\n",
    );
    let out = run_in(
        dir.path(),
        &[
            "check",
            "model.py",
            "--output-format",
            "json",
            "--dim",
            "heads=4",
        ],
        None,
    );
    let items = json(&out);
    let size = &items[0]["size"];
    assert_eq!(size["basis"], "stated", "{size}");
    let note = items[0]["notes"][0].as_str().expect("note");
    assert!(
        note.contains(
            "at batch_size=2 (config pyproject.toml), num_attention_heads=4 (heads from --dim), total_seq_len=8192 (sequence from config pyproject.toml)"
        ),
        "{note}"
    );
    let basis: Vec<&str> = size["dims"]
        .as_array()
        .expect("dims")
        .iter()
        .flat_map(|d| d["sources"].as_array().expect("sources"))
        .map(|s| s["basis"].as_str().expect("basis"))
        .fold(Vec::new(), |mut seen, b| {
            if !seen.contains(&b) {
                seen.push(b);
            }
            seen
        });
    assert_eq!(
        basis,
        [
            "config pyproject.toml",
            "heads from --dim",
            "sequence from config pyproject.toml"
        ],
        "{size}"
    );
    // Without the config, the same figure is a guess.
    let bare = tempdir();
    write(bare.path(), "model.py", &seed_all_named());
    let out = run_in(
        bare.path(),
        &["check", "model.py", "--output-format", "json"],
        None,
    );
    let items = json(&out);
    assert_eq!(items[0]["size"]["basis"], "guessed");
    let note = items[0]["notes"][0].as_str().expect("note");
    assert!(note.contains("= a guess of "), "{note}");
}

#[test]
fn a_module_constant_is_a_stated_size() {
    let dir = tempdir();
    write(
        dir.path(),
        "model.py",
        "import torch\n\nNUM_HEADS = 4\nSEQ = 8192\n\n\ndef mask(m):\n    return m[:, None, None, :].expand(2, NUM_HEADS, SEQ, SEQ).float()\n",
    );
    let out = run_in(
        dir.path(),
        &["check", "model.py", "--output-format", "json"],
        None,
    );
    let items = json(&out);
    assert_eq!(items[0]["size"]["basis"], "stated", "{}", stdout(&out));
    let note = items[0]["notes"][0].as_str().expect("note");
    assert_eq!(
        note,
        "size: [2, NUM_HEADS, SEQ, SEQ] x 4 B (float32) = 2.00 GiB at NUM_HEADS=4 (constant NUM_HEADS = 4 at model.py:3), SEQ=8192 (constant SEQ = 8192 at model.py:4)"
    );
}

#[test]
fn an_init_parameter_default_is_a_stated_size() {
    let dir = tempdir();
    write(
        dir.path(),
        "model.py",
        "import torch\n\n\nclass Pool(torch.nn.Module):\n    def __init__(self, num_tokens=4, dim=64):\n        super().__init__()\n        self.num_tokens = num_tokens\n        self.dim = dim\n\n    def forward(self, m):\n        return m[None, None, :].expand(2, self.num_tokens, self.dim).float()\n",
    );
    // 2 x 4 x 64 float32 at the defaults: tiny, so not reported at the default threshold.
    let out = run_in(
        dir.path(),
        &["check", "model.py", "--output-format", "json"],
        None,
    );
    assert_eq!(json(&out), serde_json::json!([]), "{}", stdout(&out));
    let out = run_in(
        dir.path(),
        &[
            "check",
            "model.py",
            "--output-format",
            "json",
            "--min-static-bytes",
            "0",
        ],
        None,
    );
    let items = json(&out);
    assert_eq!(items[0]["size"]["basis"], "stated", "{}", stdout(&out));
    let note = items[0]["notes"][0].as_str().expect("note");
    assert_eq!(
        note,
        "size: [2, num_tokens, dim] x 4 B (float32) = 2.00 KiB at num_tokens=4 (default num_tokens=4 at model.py:5), dim=64 (default dim=64 at model.py:5)"
    );
    let sources = &items[0]["size"]["dims"][1]["sources"];
    assert_eq!(sources[0]["source"], "default", "{sources}");
}

#[test]
fn command_line_dims_override_config_dims() {
    let dir = tempdir();
    write(dir.path(), "model.py", &seed_all_named());
    write(
        dir.path(),
        "pyproject.toml",
        "[tool.oomlint.dims]\nbatch_size = 1\nnum_attention_heads = 24\ntotal_seq_len = 9536\n",
    );
    let out = run_in(
        dir.path(),
        &["check", "model.py", "--dim", "batch_size=2"],
        None,
    );
    assert!(
        stdout(&out).contains(
            "= 4.07 GiB at batch_size=2 (--dim), num_attention_heads=24 (config pyproject.toml)"
        ),
        "{}",
        stdout(&out)
    );
}

// ----------------------------------------------------------------------------- suppression

fn lint_text(text: &str) -> Output {
    let dir = tempdir();
    write(dir.path(), "model.py", text);
    run_in(
        dir.path(),
        &["check", "model.py", "--output-format", "json"],
        None,
    )
}

#[test]
fn noqa_on_the_sink_statement_silences() {
    for comment in [
        "  # noqa: OOM101",
        "  # noqa",
        "  # noqa: OOM101, OOM102",
        "  # oomlint: ignore[OOM101]",
    ] {
        let text = SEED.replace(CAST_LINE, &format!("{CAST_LINE}{comment}"));
        let out = lint_text(&text);
        assert_eq!(code(&out), Some(0), "{comment}: {}", stdout(&out));
        assert!(json_findings(&out).is_empty(), "{comment}");
    }
}

#[test]
fn noqa_for_another_code_or_another_statement_does_not_silence() {
    let other_code = SEED.replace(CAST_LINE, &format!("{CAST_LINE}  # noqa: OOM102"));
    // The suppression belongs on the reported (sink) statement, not on the expand.
    let on_expand = SEED.replace(EXPAND_LINE, &format!("{EXPAND_LINE}  # noqa: OOM101"));
    for text in [other_code, on_expand] {
        let out = lint_text(&text);
        assert_eq!(code(&out), Some(0), "{text}");
        assert_eq!(
            json_findings(&out).into_iter().collect::<Vec<_>>(),
            vec![finding("model.py", 7, "OOM101")]
        );
    }
}

#[test]
fn noqa_on_any_line_of_a_multiline_sink_statement_silences() {
    let multi = SEED.replace(
        CAST_LINE,
        "        attn_mask = (\n            attn_mask.bool()\n        )",
    );
    let out = lint_text(&multi);
    assert_eq!(
        json_findings(&out).into_iter().collect::<Vec<_>>(),
        vec![finding("model.py", 8, "OOM101")]
    );
    let suppressed = SEED.replace(
        CAST_LINE,
        "        attn_mask = (\n            attn_mask.bool()\n        )  # noqa: OOM101",
    );
    let out = lint_text(&suppressed);
    assert_eq!(code(&out), Some(0), "{}", stdout(&out));
}

#[test]
fn file_level_noqa_silences() {
    for header in ["# oomlint: noqa\n", "# oomlint: noqa: OOM101\n"] {
        let out = lint_text(&format!("{header}{SEED}"));
        assert_eq!(code(&out), Some(0), "{header}: {}", stdout(&out));
        assert!(json_findings(&out).is_empty());
    }
    let out = lint_text(&format!("# oomlint: noqa: OOM102\n{SEED}"));
    assert_eq!(code(&out), Some(0), "{}", stdout(&out));
    assert_eq!(json_findings(&out).len(), 1, "{}", stdout(&out));
}

// ------------------------------------------------------------------------ determinism, scope

fn lint_rules_tree(threads: &str) -> Vec<u8> {
    let out = run_in(
        &repo(),
        &[
            "check",
            "testdata/rules",
            "--isolated",
            "--output-format",
            "json",
            "--threads",
            threads,
        ],
        None,
    );
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    out.stdout
}

#[test]
fn output_is_identical_across_thread_counts() {
    let one = lint_rules_tree("1");
    let two = lint_rules_tree("2");
    assert!(!one.is_empty());
    assert!(one == two, "--threads 1 and --threads 2 disagree");
}

#[test]
fn output_is_identical_across_twenty_runs_and_thread_counts() {
    let first = lint_rules_tree("2");
    for run in 1..20 {
        let threads = if run % 2 == 0 { "2" } else { "1" };
        assert!(
            lint_rules_tree(threads) == first,
            "run {run} (--threads {threads}) differs from run 0"
        );
    }
}

#[test]
fn fix_diff_and_profile_output_are_identical_across_runs_and_thread_counts() {
    let diff = |threads: &str| {
        let out = run_in(
            &repo(),
            &[
                "check",
                "testdata/fixes",
                "--isolated",
                "--diff",
                "--unsafe-fixes",
                "--threads",
                threads,
            ],
            None,
        );
        assert_eq!(code(&out), Some(1), "{}", stderr(&out));
        out.stdout
    };
    let profile = || {
        let out = run_in(
            &repo(),
            &[
                "profile",
                "testdata/profiles/crossattn_buggy_bs1.trace.json",
                "testdata/profiles/crossattn_buggy_bs2.trace.json",
                "--source",
                "testdata/profiles/model",
                "--format",
                "json",
            ],
            None,
        );
        assert_eq!(code(&out), Some(0), "{}", stderr(&out));
        out.stdout
    };
    let (first_diff, first_profile) = (diff("2"), profile());
    assert!(!first_diff.is_empty() && !first_profile.is_empty());
    for run in 1..20 {
        let threads = if run % 2 == 0 { "2" } else { "1" };
        assert!(diff(threads) == first_diff, "--diff run {run} differs");
        assert!(profile() == first_profile, "profile run {run} differs");
    }
}

#[test]
fn interprocedural_findings_point_into_the_helper_file() {
    let out = run_in(
        &repo(),
        &[
            "check",
            "testdata/rules/dataflow/interproc_pkg",
            "--isolated",
            "--output-format",
            "json",
        ],
        None,
    );
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    let value = json(&out);
    let in_model: Vec<_> = value
        .as_array()
        .expect("array")
        .iter()
        .filter(|d| {
            d["filename"]
                .as_str()
                .is_some_and(|f| f.replace('\\', "/").ends_with("interproc_pkg/model.py"))
        })
        .collect();
    assert!(!in_model.is_empty(), "no findings in model.py: {value:#}");
    let crosses = in_model.iter().any(|d| {
        d["chain"].as_array().is_some_and(|chain| {
            chain.iter().any(|s| {
                s["filename"]
                    .as_str()
                    .is_some_and(|f| f.replace('\\', "/").ends_with("helpers.py"))
            })
        })
    });
    assert!(crosses, "no chain step in helpers.py: {value:#}");
}

/// The size note of the one finding in `dir`, and its JSON sources as (name, value, source, file).
fn size_of_one(dir: &Path, extra: &[&str]) -> (String, Vec<(String, i64, String, String)>) {
    let mut args = vec!["check", ".", "--isolated", "--output-format", "json"];
    args.extend_from_slice(extra);
    let out = run_in(dir, &args, None);
    let items = json(&out);
    let items = items.as_array().expect("list");
    assert_eq!(items.len(), 1, "{items:?}");
    let note = items[0]["notes"][0].as_str().expect("note").to_string();
    let sources = items[0]["size"]["dims"]
        .as_array()
        .expect("dims")
        .iter()
        .flat_map(|d| d["sources"].as_array().cloned().unwrap_or_default())
        .map(|s| {
            (
                s["name"].as_str().unwrap_or("").to_string(),
                s["value"].as_i64().unwrap_or(0),
                s["source"].as_str().unwrap_or("").to_string(),
                s["file"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    (note, sources)
}

#[test]
fn dims_read_through_a_model_config_take_its_values() {
    // A `config.json` beside the code states the head count.
    let dir = seed_dir();
    write(
        dir.path(),
        "config.json",
        "{\"num_attention_heads\": 24, \"text_config\": {\"hidden_size\": 64}}",
    );
    let (note, sources) = size_of_one(dir.path(), &[]);
    assert!(
        note.contains("num_attention_heads=24 (config.json)"),
        "{note}"
    );
    assert!(
        sources.contains(&(
            "num_attention_heads".into(),
            24,
            "config".into(),
            "config.json".into()
        )),
        "{sources:?}"
    );
    // A name bound by the user wins over the configuration.
    let (note, _) = size_of_one(dir.path(), &["--dim", "num_attention_heads=3"]);
    assert!(note.contains("num_attention_heads=3 (--dim)"), "{note}");

    // No `config.json`: the keyword defaults of the configuration class in the folder, also
    // through an attribute set from the config in `__init__`.
    let dir = tempdir();
    write(
        dir.path(),
        "configuration_seed.py",
        "class SeedConfig:\n    def __init__(self, hidden_size=64, num_attention_heads=16, **kwargs):\n        self.hidden_size = hidden_size\n",
    );
    write(
        dir.path(),
        "modeling_seed.py",
        &SEED
            .replace("self.num_attention_heads", "self.num_heads")
            .replace(
                "class Attention(torch.nn.Module):\n",
                "class Attention(torch.nn.Module):\n    def __init__(self, config):\n        super().__init__()\n        self.num_heads = config.num_attention_heads\n\n",
            ),
    );
    let (note, sources) = size_of_one(dir.path(), &[]);
    assert!(
        note.contains("num_heads=16 (configuration_seed.py)"),
        "{note}"
    );
    assert!(
        sources.contains(&(
            "num_heads".into(),
            16,
            "config".into(),
            "configuration_seed.py".into()
        )),
        "{sources:?}"
    );
}
