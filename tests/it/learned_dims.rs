//! Sizes learned from a profile (`check --profile`), the capacity budget (`--capacity`, `capacity`
//! in the configuration) and `oomlint dims --from`, through the built binary on the samples in
//! `testdata/samples/` (ground truth in its README) and the seed model in `testdata/seed/`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::*;

fn sample(rel: &str) -> String {
    samples().join(rel).to_string_lossy().into_owned()
}

/// The sample model the CPU traces ran, plus one more mask builder from the same names that the
/// profile never ran (`prepare_bias`, cast to float32).
const EXTRA_SITE: &str = "

class BiasAttention(BuggyAttention):
    def prepare_bias(self, attn_mask, batch_size, total_seq_len):
        bias = attn_mask.expand(batch_size, self.num_attention_heads, total_seq_len, -1)
        bias = bias.float()
        return bias
";

fn model_with_extra_site() -> (tempfile::TempDir, PathBuf, usize) {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = std::fs::read_to_string(samples().join("torch-cpu/tiny_model.py")).expect("model");
    let text = format!("{text}{EXTRA_SITE}");
    let row = text
        .lines()
        .position(|l| l.contains("bias = bias.float()"))
        .expect("extra site")
        + 1;
    let path = dir.path().join("tiny_model.py");
    std::fs::write(&path, text).expect("write model");
    (dir, path, row)
}

/// `check --output-format json ARGS` in `dir`: the findings and the process output.
fn check(dir: &Path, args: &[&str]) -> (Vec<Value>, std::process::Output) {
    let out = check_json_in(dir, args, false);
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("json: {e}\n{}\n{}", stdout(&out), stderr(&out)));
    (v.as_array().cloned().unwrap_or_default(), out)
}

fn at_row(items: &[Value], row: usize) -> &Value {
    items
        .iter()
        .find(|d| d["location"]["row"].as_u64() == Some(row as u64) && d.get("size").is_some())
        .unwrap_or_else(|| panic!("no finding with a size at row {row}: {items:#?}"))
}

/// Every number of the figure came from somewhere stated: none assumed.
fn sources(size: &Value) -> Vec<(String, i64, String)> {
    size["dims"]
        .as_array()
        .expect("dims")
        .iter()
        .flat_map(|d| d["sources"].as_array().cloned().unwrap_or_default())
        .map(|s| {
            (
                s["name"].as_str().unwrap_or_default().to_string(),
                s["value"].as_i64().unwrap_or_default(),
                s["source"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_site_the_profile_never_ran_is_priced_with_the_measured_dims() {
    let (dir, model, row) = model_with_extra_site();
    let trace = sample("torch-cpu/expand_then_cast_bs2.trace.json");
    let model = model.to_string_lossy().into_owned();

    // Without the profile: guessed (batch 8, 32 heads, 4096 x 512) = 2 GiB.
    let (items, _) = check(dir.path(), &["--isolated", &model]);
    let size = &at_row(&items, row)["size"];
    assert_eq!(size["bytes"], 2_147_483_648u64);
    assert_eq!(size["assumed"], true);

    // With the bs2 trace: every dim measured at line 35, none assumed: [2, 24, 2048, 2048] x 4 B.
    let (items, out) = check(dir.path(), &["--isolated", "--profile", &trace, &model]);
    let size = &at_row(&items, row)["size"];
    assert_eq!(size["bytes"], 805_306_368u64, "{}", stderr(&out));
    assert_eq!(size["assumed"], false);
    let found = sources(size);
    assert_eq!(
        found,
        vec![
            ("batch_size".to_string(), 2, "profile".to_string()),
            ("num_attention_heads".to_string(), 24, "profile".to_string()),
            ("total_seq_len".to_string(), 2048, "profile".to_string()),
            (
                "attn_mask.shape[-1]".to_string(),
                2048,
                "profile".to_string()
            ),
        ]
    );
    let source = &size["dims"][2]["sources"][0];
    assert_eq!(source["file"], "expand_then_cast_bs2.trace.json");
    assert_eq!(source["at"], "tiny_model.py:35");
    let notes = at_row(&items, row)["notes"].to_string();
    assert!(
        notes.contains("total_seq_len=attn_mask.shape[-1]=2048 (from expand_then_cast_bs2.trace.json, tiny_model.py:35)"),
        "{notes}"
    );
    // No capacity: no verdict.
    assert!(size.get("exceeds_capacity").is_none());

    // `--dim` overrides the profile.
    let bs3 = ["--isolated", "--profile", &trace, "--dim", "batch_size=3"];
    let (items, _) = check(dir.path(), &[&bs3[..], &[model.as_str()]].concat());
    let size = &at_row(&items, row)["size"];
    assert_eq!(size["bytes"], 1_207_959_552u64);
    assert_eq!(size["dims"][0]["sources"][0]["source"], "bound");

    // A 1 GiB budget is exceeded, and the message says by what.
    let (items, out) = check(
        dir.path(),
        &[&bs3[..], &["--capacity", "1GiB", model.as_str()]].concat(),
    );
    assert_eq!(out.status.code(), Some(1));
    let finding = at_row(&items, row);
    assert_eq!(finding["size"]["capacity"], 1_073_741_824u64);
    assert_eq!(finding["size"]["exceeds_capacity"], true);
    let message = finding["message"].as_str().expect("message");
    assert!(
        message.ends_with("would allocate 1.12 GiB at batch_size=3, more than the 1 GiB capacity"),
        "{message}"
    );
    // The measured site itself (288 MiB at bs3) fits.
    assert_eq!(at_row(&items, 35)["size"]["exceeds_capacity"], false);

    // 2 GiB is enough.
    let (items, _) = check(
        dir.path(),
        &[&bs3[..], &["--capacity", "2GiB", model.as_str()]].concat(),
    );
    let finding = at_row(&items, row);
    assert_eq!(finding["size"]["exceeds_capacity"], false);
    assert!(
        !finding["message"]
            .as_str()
            .unwrap()
            .contains("would allocate")
    );
}

#[test]
fn profiles_measuring_different_values_keep_the_larger_with_a_note() {
    let (dir, model, row) = model_with_extra_site();
    let bs1 = sample("torch-cpu/expand_then_cast_bs1.trace.json");
    let bs2 = sample("torch-cpu/expand_then_cast_bs2.trace.json");
    let model = model.to_string_lossy().into_owned();
    let (items, _) = check(
        dir.path(),
        &["--isolated", "--profile", &bs1, "--profile", &bs2, &model],
    );
    let finding = at_row(&items, row);
    assert_eq!(finding["size"]["bytes"], 805_306_368u64);
    let notes = finding["notes"].to_string();
    assert!(
        notes.contains("`batch_size`: the profiles also measured 1 (expand_then_cast_bs1.trace.json, tiny_model.py:35); the larger, 2"),
        "{notes}"
    );
}

/// A temp tree holding `testdata/seed/model/modeling_tiny.py`, the path the constructed CUDA and
/// Ascend samples name (`/workspace/model/modeling_tiny.py`).
fn seed_tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("model")).expect("mkdir");
    std::fs::copy(
        repo().join("testdata/seed/model/modeling_tiny.py"),
        dir.path().join("model/modeling_tiny.py"),
    )
    .expect("copy model");
    dir
}

#[test]
fn seed_bs2_ascend_profile_answers_whether_bs3_fits_the_npu() {
    let dir = seed_tree();
    let folder = sample("ascend/constructed_bs2_ascend_pt");
    let base = ["--isolated", "--profile", &folder, "--capacity", "60.96GiB"];

    // At the profile's own batch the line fits (it ran): 36.59 GiB held at once.
    let (items, _) = check(dir.path(), &[&base[..], &["model"]].concat());
    let cast = at_row(&items, 35);
    assert_eq!(cast["code"], "OOM101");
    assert_eq!(cast["size"]["bytes"], 4_364_894_208u64);
    assert_eq!(cast["size"]["exceeds_capacity"], false);
    // The capacity less the 11.21 GiB the profile measured before the first operator.
    let capacity = cast["size"]["capacity"].as_u64().expect("capacity");
    assert_eq!(
        capacity,
        crate_size("60.96GiB") - 12_031_361_024,
        "{cast:#}"
    );

    // At bs=3: the int64 broadcast and the bool result the NPU holds at once, scaled by 3/2.
    let (items, out) = check(
        dir.path(),
        &[&base[..], &["--dim", "batch_size=3", "model"]].concat(),
    );
    assert_eq!(out.status.code(), Some(1));
    let cast = at_row(&items, 35);
    assert_eq!(cast["size"]["bytes"], 6_547_341_312u64);
    assert_eq!(cast["size"]["exceeds_capacity"], true);
    let message = cast["message"].as_str().expect("message");
    assert!(
        message.ends_with(
            "would allocate 54.88 GiB at batch_size=3, more than the 49.75 GiB left of the 60.96 GiB capacity after 11.21 GiB of static memory (constructed_bs2_ascend_pt)"
        ),
        "{message}"
    );
    let notes = cast["notes"].to_string();
    assert!(notes.contains("58,926,071,808 B (54.88 GiB)"), "{notes}");
}

#[test]
fn seed_bs2_cuda_snapshot_with_the_dims_stated_reproduces_the_bs3_oom() {
    let dir = seed_tree();
    let snapshot = sample("cuda-snapshot/constructed_cuda_snapshot_bs2.pickle");
    // A snapshot has no shapes and the site four unknown dims: nothing to learn alone; with the
    // sizes stated, the figure is the request the bs=3 run failed on (6,547,341,312 B), more than
    // the 5.65 GiB the 18 GiB of weights leave on a 23.65 GiB GPU.
    let (items, out) = check(
        dir.path(),
        &[
            "--isolated",
            "--profile",
            &snapshot,
            "--dim",
            "batch_size=3",
            "--dim",
            "num_attention_heads=24",
            "--dim",
            "total_seq_len=9536",
            "--dim",
            "attn_mask.shape[-1]=9536",
            "--capacity",
            "23.65GiB",
            "model",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let cast = at_row(&items, 35);
    assert_eq!(cast["size"]["bytes"], 6_547_341_312u64);
    assert_eq!(cast["size"]["assumed"], false);
    assert_eq!(cast["size"]["exceeds_capacity"], true);
    assert_eq!(
        cast["size"]["capacity"].as_u64(),
        Some(crate_size("23.65GiB") - 19_327_352_832)
    );
    let message = cast["message"].as_str().expect("message");
    assert!(
        message.contains("more than the 5.65 GiB left of the 23.65 GiB capacity after 18 GiB of static memory (constructed_cuda_snapshot_bs2.pickle)"),
        "{message}"
    );
}

/// Bytes of a size as the command line reads it (`60.96GiB`).
fn crate_size(text: &str) -> u64 {
    oomlint::config::parse_byte_size(text).expect("size")
}

#[test]
fn dims_from_prints_a_block_that_prices_later_runs_without_the_profile() {
    let (dir, model, row) = model_with_extra_site();
    let out = run_in(
        dir.path(),
        &[
            "dims",
            "--isolated",
            "--from",
            &sample("torch-cpu/expand_then_cast_bs1.trace.json"),
            &sample("torch-cpu/expand_then_cast_bs2.trace.json"),
            "--source",
            &model.to_string_lossy(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let block = stdout(&out);
    insta::assert_snapshot!("dims_from_bs1_bs2", block);

    // Committed: a run without the profile prices the extra site at the measured sizes.
    std::fs::write(dir.path().join("pyproject.toml"), &block).expect("write config");
    let (items, out) = check(dir.path(), &["tiny_model.py"]);
    let size = &at_row(&items, row)["size"];
    assert_eq!(size["bytes"], 805_306_368u64, "{}", stderr(&out));
    assert_eq!(size["assumed"], false);
}

#[test]
fn capacity_in_the_config_is_read_and_validated() {
    let (dir, _, row) = model_with_extra_site();
    std::fs::write(
        dir.path().join("pyproject.toml"),
        "[tool.oomlint]\ncapacity = \"1GiB\"\n\n[tool.oomlint.dims]\nbatch_size = 3\nnum_attention_heads = 24\ntotal_seq_len = 2048\n\"attn_mask.shape[-1]\" = 2048\n",
    )
    .expect("write config");
    let (items, out) = check(dir.path(), &["tiny_model.py"]);
    assert_eq!(out.status.code(), Some(1));
    let finding = at_row(&items, row);
    assert_eq!(finding["size"]["exceeds_capacity"], true);
    assert_eq!(finding["size"]["capacity"], 1_073_741_824u64);
    // `--capacity` overrides the configuration's.
    let (items, _) = check(dir.path(), &["--capacity", "2GiB", "tiny_model.py"]);
    assert_eq!(at_row(&items, row)["size"]["exceeds_capacity"], false);

    for (value, expected) in [
        ("\"lots\"", "invalid size `lots`"),
        ("0", "expected a positive size"),
        ("\"1 parsec\"", "invalid size unit"),
    ] {
        std::fs::write(
            dir.path().join("pyproject.toml"),
            format!("[tool.oomlint]\ncapacity = {value}\n"),
        )
        .expect("write config");
        let out = run_in(dir.path(), &["check", "tiny_model.py"], None);
        assert_eq!(out.status.code(), Some(2), "{value}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains("pyproject.toml"), "{err}");
        assert!(err.contains("capacity"), "{err}");
        assert!(err.contains(expected), "{value}: {err}");
    }
    // And on the command line.
    let out = run_in(
        dir.path(),
        &["check", "--capacity", "big", "tiny_model.py"],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--capacity"), "{}", stderr(&out));
}

#[test]
fn sarif_carries_the_size_and_the_capacity_verdict() {
    let (dir, model, row) = model_with_extra_site();
    let out = run_in(
        dir.path(),
        &[
            "check",
            "--isolated",
            "--output-format",
            "sarif",
            "--profile",
            &sample("torch-cpu/expand_then_cast_bs2.trace.json"),
            "--dim",
            "batch_size=3",
            "--capacity",
            "1GiB",
            &model.to_string_lossy(),
        ],
        None,
    );
    let log: Value = serde_json::from_slice(&out.stdout).expect("sarif");
    let results = log["runs"][0]["results"].as_array().expect("results");
    let result = results
        .iter()
        .find(|r| {
            r["locations"][0]["physicalLocation"]["region"]["startLine"].as_u64()
                == Some(row as u64)
        })
        .expect("the extra site");
    let size = &result["properties"]["size"];
    assert_eq!(size["bytes"], 1_207_959_552u64);
    assert_eq!(size["exceeds_capacity"], true);
    assert_eq!(size["capacity"], 1_073_741_824u64);
}
