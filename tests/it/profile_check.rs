//! `oomlint check --profile/--oom-log` through the binary, on the samples in `testdata/samples/`
//! (its README has the ground truth).

use std::path::{Path, PathBuf};

use crate::common::*;
use serde_json::Value;

fn sample(rel: &str) -> String {
    samples().join(rel).to_string_lossy().into_owned()
}

/// The sample model, which the traces name as `tiny_model.py`.
fn tiny_model() -> PathBuf {
    samples().join("torch-cpu/tiny_model.py")
}

fn json(args: &[&str], dir: &Path) -> (Vec<Value>, std::process::Output) {
    let out = run_in(dir, args, None);
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("json: {e}\n{}\n{}", stdout(&out), stderr(&out)));
    (v.as_array().cloned().unwrap_or_default(), out)
}

/// A temp tree holding the sample model as `model/modeling_tiny.py` (the path the constructed
/// CUDA and Ascend samples name: `/workspace/model/modeling_tiny.py`).
fn constructed_tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("model")).expect("mkdir");
    std::fs::copy(tiny_model(), dir.path().join("model/modeling_tiny.py")).expect("copy model");
    dir
}

fn find<'a>(items: &'a [Value], code: &str, row: u64) -> Option<&'a Value> {
    items
        .iter()
        .find(|d| d["code"] == code && d["location"]["row"].as_u64() == Some(row))
}

#[test]
fn trace_bs2_top_finding_is_oom101_with_measured_bytes() {
    let model = tiny_model();
    let trace = sample("torch-cpu/expand_then_cast_bs2.trace.json");
    let (items, out) = json(
        &[
            "check",
            "--isolated",
            "--output-format",
            "json",
            "--profile",
            &trace,
            &model.to_string_lossy(),
        ],
        &repo(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let top = &items[0];
    assert_eq!(top["code"], "OOM101");
    assert_eq!(top["location"]["row"], 35);
    let ev = &top["evidence"];
    assert_eq!(ev["bytes"], 201_326_592u64);
    assert_eq!(ev["calls"], 2);
    assert_eq!(ev["total_bytes"], 402_653_184u64);
    assert_eq!(ev["op"], "aten::to");
    assert_eq!(
        ev["input_shapes"][0],
        serde_json::json!([2, 24, 2048, 2048])
    );
    assert_eq!(ev["input_strides"][0], serde_json::json!([0, 0, 2048, 1]));
    assert_eq!(ev["input_dtypes"][0], "long int");
    assert_eq!(ev["materialized_broadcast"], true);
    assert_eq!(ev["source"]["kind"], "chrome_trace");
    assert_eq!(ev["source"]["file"], "tiny_model.py");
    assert_eq!(ev["source"]["line"], 35);
    let share = ev["peak_share"].as_f64().expect("share");
    assert!((share - 201_326_592.0 / 328_335_360.0).abs() < 1e-9);
    // The static finding carries the evidence: no separate OOM201 at that line.
    assert!(find(&items, "OOM201", 35).is_none());

    // The full output prints the measured line under the static one.
    let out = run_in(
        &repo(),
        &[
            "check",
            "--isolated",
            "--profile",
            &trace,
            &model.to_string_lossy(),
        ],
        None,
    );
    let text = stdout(&out);
    assert!(
        text.contains(
            "profile: aten::to wrote 192.0 MiB x2 at tiny_model.py:35 (input [2,24,2048,2048] long int, strides [0,0,2048,1])"
        ),
        "{text}"
    );
}

#[test]
fn fixed_trace_gives_no_materialized_broadcast_evidence() {
    let model = tiny_model();
    let (items, out) = json(
        &[
            "check",
            "--isolated",
            "--output-format",
            "json",
            "--profile",
            &sample("torch-cpu/fixed_bs2.trace.json"),
            &model.to_string_lossy(),
        ],
        &repo(),
    );
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
    for d in &items {
        assert_ne!(d["code"], "OOM201", "{d}");
        if d["code"] == "OOM101" {
            assert!(d["evidence"].is_null(), "{d}");
        }
    }
}

#[test]
fn function_level_frames_match_the_sink_inside_the_function() {
    // Without `CallFrom` the trace knows only `prepare_mask` (def line 33) calling `bool`.
    let text = std::fs::read_to_string(sample("torch-cpu/expand_then_cast_bs2.verbose.trace.json"))
        .expect("read trace");
    let dir = tempfile::tempdir().expect("tempdir");
    let trace = dir.path().join("no_callfrom.trace.json");
    std::fs::write(&trace, text.replace("\"CallFrom\"", "\"NoCallFrom\"")).expect("write");
    let (items, _) = json(
        &[
            "check",
            "--isolated",
            "--output-format",
            "json",
            "--profile",
            &trace.to_string_lossy(),
            &tiny_model().to_string_lossy(),
        ],
        &repo(),
    );
    let d = find(&items, "OOM101", 35).expect("OOM101 at 35");
    assert_eq!(d["evidence"]["bytes"], 201_326_592u64);
    assert_eq!(d["evidence"]["source"]["line"], 33);
    assert_eq!(d["evidence"]["source"]["line_match"], "in_function");
}

#[test]
fn cuda_snapshot_measures_the_same_line() {
    let tree = constructed_tree();
    let (items, out) = json(
        &[
            "check",
            "--isolated",
            "--output-format",
            "json",
            "--profile",
            &sample("cuda-snapshot/constructed_cuda_snapshot_bs2.pickle"),
            "model",
        ],
        tree.path(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let d = find(&items, "OOM101", 35).expect("OOM101 at 35");
    assert_eq!(d["filename"], "model/modeling_tiny.py");
    assert_eq!(d["evidence"]["bytes"], 4_364_894_208u64);
    assert_eq!(d["evidence"]["calls"], 2);
    assert_eq!(d["evidence"]["source"]["kind"], "cuda_snapshot");
    // The 18 GiB of weights loaded in `load_model` are static memory, not a finding, and the
    // spike's line comes first.
    assert!(
        items.iter().all(|d| d["code"] != "OOM202"),
        "static memory reported as OOM202: {items:?}"
    );
    assert_eq!(items[0]["code"], "OOM101", "{items:?}");
    assert_eq!(items[0]["location"]["row"], 35);
}

#[test]
fn ascend_folder_measures_the_same_line_and_large_allocations_elsewhere() {
    let tree = constructed_tree();
    let (items, _) = json(
        &[
            "check",
            "--isolated",
            "--output-format",
            "json",
            "--profile",
            &sample("ascend/constructed_bs2_ascend_pt"),
            "model",
        ],
        tree.path(),
    );
    let top = &items[0];
    assert_eq!(top["code"], "OOM101");
    assert_eq!(top["location"]["row"], 35);
    assert_eq!(top["evidence"]["bytes"], 34_100_736u64 * 1024);
    assert_eq!(top["evidence"]["calls"], 2);
    assert_eq!(
        top["evidence"]["input_shapes"][0],
        serde_json::json!([2, 24, 9536, 9536])
    );
    // The bf16 scores (8,525,184 KB) have no static rule: OOM202 at the matmul line.
    let d = find(&items, "OOM202", 48).expect("OOM202 at 48");
    assert_eq!(d["evidence"]["bytes"], 8_525_184u64 * 1024);
    // Sorted by measured bytes.
    let ranks: Vec<u64> = items
        .iter()
        .filter_map(|d| d["evidence"]["total_bytes"].as_u64())
        .collect();
    assert!(ranks.windows(2).all(|w| w[0] >= w[1]), "{ranks:?}");
}

#[test]
fn oom_logs_give_oom203_at_the_failing_line() {
    let tree = constructed_tree();
    for (log, requested) in [
        ("cuda-snapshot/constructed_oom_cuda_bs3.log", None),
        ("ascend/constructed_oom_npu_bs3.log", None),
        ("torch-cpu/oom_cpu.log", Some(6_547_341_312u64)),
    ] {
        // The CPU log names /home/user/tinymodel/tiny_model.py: lint the model under that name.
        let target = if log.starts_with("torch-cpu") {
            std::fs::copy(tiny_model(), tree.path().join("tiny_model.py")).expect("copy");
            "tiny_model.py"
        } else {
            "model"
        };
        let (items, out) = json(
            &[
                "check",
                "--isolated",
                "--output-format",
                "json",
                "--oom-log",
                &sample(log),
                target,
            ],
            tree.path(),
        );
        assert_eq!(out.status.code(), Some(1), "{log}: {}", stderr(&out));
        let d = find(&items, "OOM203", 35).unwrap_or_else(|| panic!("{log}: {items:?}"));
        assert_eq!(d["evidence"]["source"]["line_match"], "exact", "{log}");
        let oom = &d["evidence"]["oom"];
        assert!(oom["requested_bytes"].as_u64().is_some(), "{log}");
        if let Some(r) = requested {
            assert_eq!(oom["requested_bytes"], r);
        }
        // The static finding is still there, next to it.
        assert!(find(&items, "OOM101", 35).is_some(), "{log}");
    }
}

#[test]
fn moved_and_changed_lines() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("model")).expect("mkdir");
    let text = std::fs::read_to_string(tiny_model()).expect("model");
    // Three lines inserted above: the printed line is now at 38.
    std::fs::write(
        dir.path().join("model/modeling_tiny.py"),
        format!("# a\n# b\n# c\n{text}"),
    )
    .expect("write");
    let log = sample("cuda-snapshot/constructed_oom_cuda_bs3.log");
    let (items, _) = json(
        &[
            "check",
            "--isolated",
            "--output-format",
            "json",
            "--oom-log",
            &log,
            "model",
        ],
        dir.path(),
    );
    let d = find(&items, "OOM203", 38).unwrap_or_else(|| panic!("{items:?}"));
    assert_eq!(d["evidence"]["source"]["line_match"], "moved");

    // The line's text no longer exists: the finding keeps the evidence's own location.
    std::fs::write(
        dir.path().join("model/modeling_tiny.py"),
        text.replace(
            "attn_mask = attn_mask.bool()",
            "attn_mask = attn_mask.to(torch.bool)",
        ),
    )
    .expect("write");
    let (items, _) = json(
        &[
            "check",
            "--isolated",
            "--output-format",
            "json",
            "--oom-log",
            &log,
            "model",
        ],
        dir.path(),
    );
    let d = items
        .iter()
        .find(|d| d["code"] == "OOM203")
        .expect("OOM203");
    assert_eq!(d["filename"], "/workspace/model/modeling_tiny.py");
    assert_eq!(d["evidence"]["source"]["line_match"], "unlocated");
}

#[test]
fn path_map_resolves_ambiguous_suffixes() {
    let dir = tempfile::tempdir().expect("tempdir");
    for sub in ["src/nets", "vendor/old"] {
        std::fs::create_dir_all(dir.path().join(sub)).expect("mkdir");
        std::fs::copy(tiny_model(), dir.path().join(sub).join("modeling_tiny.py")).expect("copy");
    }
    let log = sample("cuda-snapshot/constructed_oom_cuda_bs3.log");
    let args = [
        "check",
        "--output-format",
        "json",
        "--oom-log",
        &log,
        "src",
        "vendor",
    ];
    // Two files end in `modeling_tiny.py` equally well: nothing is trusted.
    let (items, _) = json(&args, dir.path());
    let d = items
        .iter()
        .find(|d| d["code"] == "OOM203")
        .expect("OOM203");
    assert_eq!(d["filename"], "/workspace/model/modeling_tiny.py");
    // `path-map` says where /workspace/model lives in this repository.
    std::fs::write(
        dir.path().join("oomlint.toml"),
        "[path-map]\n\"/workspace/model\" = \"src/nets\"\n",
    )
    .expect("config");
    let (items, out) = json(&args, dir.path());
    let d = items
        .iter()
        .find(|d| d["code"] == "OOM203")
        .unwrap_or_else(|| panic!("{}", stderr(&out)));
    assert_eq!(d["filename"], "src/nets/modeling_tiny.py");
    assert_eq!(d["location"]["row"], 35);
}

#[test]
fn config_profiles_and_min_bytes() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::copy(tiny_model(), dir.path().join("tiny_model.py")).expect("copy");
    let trace = sample("torch-cpu/expand_then_cast_bs2.trace.json").replace('\\', "/");
    std::fs::write(
        dir.path().join("oomlint.toml"),
        format!("profiles = [\"{trace}\"]\n"),
    )
    .expect("config");
    let (items, _) = json(&["check", "--output-format", "json", "."], dir.path());
    assert_eq!(items[0]["evidence"]["bytes"], 201_326_592u64);
    // min-bytes above the measured size hides the measured finding.
    std::fs::write(
        dir.path().join("oomlint.toml"),
        format!("profiles = [\"{trace}\"]\nmin-bytes = \"300MiB\"\n"),
    )
    .expect("config");
    let (items, out) = json(&["check", "--output-format", "json", "."], dir.path());
    assert!(items.is_empty(), "{items:?}");
    assert_eq!(out.status.code(), Some(0));
    // A lower threshold lets OOM202 report the 48 MiB allocations without a static finding.
    let (items, _) = json(
        &[
            "check",
            "--output-format",
            "json",
            "--min-bytes",
            "40MiB",
            ".",
        ],
        dir.path(),
    );
    assert!(find(&items, "OOM202", 48).is_some(), "{items:?}");
    assert!(find(&items, "OOM101", 35).is_some());
}

#[test]
fn bad_evidence_is_one_line_and_the_rest_goes_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = dir.path().join("truncated.trace.json");
    let text = std::fs::read(sample("torch-cpu/expand_then_cast_bs2.trace.json")).expect("read");
    std::fs::write(&bad, &text[..text.len() / 2]).expect("write");
    let model = tiny_model();
    let (items, out) = json(
        &[
            "check",
            "--isolated",
            "--output-format",
            "json",
            "--profile",
            &bad.to_string_lossy(),
            "--profile",
            &sample("torch-cpu/expand_then_cast_bs2.trace.json"),
            &model.to_string_lossy(),
        ],
        &repo(),
    );
    let err = stderr(&out);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("truncated.trace.json"), "{err}");
    assert!(err.contains("byte"), "{err}");
    // A file that cannot be read is a usage error: exit 2, after the report of the rest.
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(items[0]["evidence"]["bytes"], 201_326_592u64);

    // Nothing readable at all: exit 2.
    let out = run_in(
        &repo(),
        &[
            "check",
            "--isolated",
            "--profile",
            &bad.to_string_lossy(),
            &model.to_string_lossy(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

#[test]
fn noqa_and_ignore_apply_to_profile_findings() {
    let tree = constructed_tree();
    let path = tree.path().join("model/modeling_tiny.py");
    let text = std::fs::read_to_string(&path).expect("read");
    let lines: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i + 1 == 48 {
                format!("{l}  # noqa: OOM202")
            } else {
                l.to_string()
            }
        })
        .collect();
    std::fs::write(&path, lines.join("\n") + "\n").expect("write");
    let ascend = sample("ascend/constructed_bs2_ascend_pt");
    let (items, _) = json(
        &[
            "check",
            "--isolated",
            "--output-format",
            "json",
            "--profile",
            &ascend,
            "model",
        ],
        tree.path(),
    );
    assert!(find(&items, "OOM202", 48).is_none(), "{items:?}");
    assert!(find(&items, "OOM202", 50).is_some(), "{items:?}");
    let (items, _) = json(
        &[
            "check",
            "--isolated",
            "--output-format",
            "json",
            "--ignore",
            "OOM202",
            "--profile",
            &ascend,
            "model",
        ],
        tree.path(),
    );
    assert!(items.iter().all(|d| d["code"] != "OOM202"), "{items:?}");
}

#[test]
fn oom201_when_no_static_finding_is_at_the_line() {
    // With OOM101 ignored, the profile alone reports the materialized broadcast at line 35.
    let (items, _) = json(
        &[
            "check",
            "--isolated",
            "--output-format",
            "json",
            "--ignore",
            "OOM101",
            "--profile",
            &sample("torch-cpu/expand_then_cast_bs1.trace.json"),
            &tiny_model().to_string_lossy(),
        ],
        &repo(),
    );
    let d = find(&items, "OOM201", 35).unwrap_or_else(|| panic!("{items:?}"));
    assert_eq!(d["evidence"]["bytes"], 100_663_296u64);
    assert_eq!(
        d["evidence"]["input_strides"][0],
        serde_json::json!([4_194_304, 0, 2048, 1])
    );
    assert_eq!(items.len(), 1, "{items:?}");
}
