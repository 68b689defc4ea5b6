//! `oomlint profile` through the binary, on the samples in `testdata/samples/`.

use crate::common::*;
use serde_json::Value;

fn sample(rel: &str) -> String {
    samples().join(rel).to_string_lossy().into_owned()
}

fn source_dir() -> String {
    sample("torch-cpu")
}

fn profile_json(args: &[&str]) -> Value {
    profile_json_exit(args, 0)
}

/// The JSON report, checking the exit code (1 when a peak exceeds `--capacity`).
fn profile_json_exit(args: &[&str], code: i32) -> Value {
    let mut all = vec!["profile", "--format", "json"];
    all.extend_from_slice(args);
    let out = run_in(&repo(), &all, None);
    assert_eq!(out.status.code(), Some(code), "{}", stderr(&out));
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("json: {e}\n{}\n{}", stdout(&out), stderr(&out)))
}

const BS3_PEAK: f64 = 492_503_040.0;

fn check_prediction(v: &Value) {
    let p = &v["scaling"]["prediction"];
    let peak = p["peak_bytes"].as_f64().expect("peak");
    assert!((peak - BS3_PEAK).abs() / BS3_PEAK < 0.02, "{peak}");
    let site = &p["largest_site"];
    assert_eq!(site["line"], 35, "{site}");
    assert_eq!(site["op"], "aten::to");
    assert!((site["predicted_bytes"].as_f64().expect("bytes") - 301_989_888.0).abs() < 1.0);
    // The static finding and its fix at that line.
    let f = &site["source"]["findings"][0];
    assert_eq!(f["code"], "OOM101", "{site}");
    assert!(f["help"].as_str().is_some_and(|h| h.contains("cast first")));
}

#[test]
fn labelled_profiles_predict_the_bs3_peak_and_name_line_35() {
    let a = format!(
        "{}@batch_size=1",
        sample("torch-cpu/expand_then_cast_bs1.trace.json")
    );
    let b = format!(
        "{}@batch_size=2",
        sample("torch-cpu/expand_then_cast_bs2.trace.json")
    );
    let src = source_dir();
    let v = profile_json(&["--source", &src, "--predict", "batch_size=3", &a, &b]);
    assert_eq!(v["scaling"]["dimension"], "batch_size");
    assert_eq!(v["scaling"]["inferred"], false);
    check_prediction(&v);
    // Hot allocations and their source lines.
    let hot = &v["profiles"][1]["hot"][0];
    assert_eq!(hot["bytes"], 201_326_592u64);
    assert_eq!(hot["count"], 2);
    assert_eq!(v["profiles"][1]["sources"][0]["line"], 35);
    assert_eq!(v["profiles"][1]["peak"]["allocated_bytes"], 328_335_360u64);
}

#[test]
fn unlabelled_profiles_infer_the_batch_dimension() {
    let src = source_dir();
    let a = sample("torch-cpu/expand_then_cast_bs1.trace.json");
    let b = sample("torch-cpu/expand_then_cast_bs2.trace.json");
    let v = profile_json(&["--source", &src, "--predict", "batch_size=3", &a, &b]);
    let s = &v["scaling"];
    assert_eq!(s["inferred"], true);
    let why = s["explanation"].as_str().expect("explanation");
    assert!(why.contains("values 1, 2"), "{why}");
    assert_eq!(v["profiles"][0]["label"]["value"], 1.0);
    check_prediction(&v);
}

#[test]
fn capacity_names_the_first_site_exceeding_it() {
    let src = source_dir();
    let a = sample("torch-cpu/expand_then_cast_bs1.trace.json");
    let b = sample("torch-cpu/expand_then_cast_bs2.trace.json");
    let v = profile_json_exit(
        &[
            "--source",
            &src,
            "--predict",
            "batch_size=3",
            "--capacity",
            "300MB",
            &a,
            &b,
        ],
        1,
    );
    let p = &v["scaling"]["prediction"];
    assert_eq!(p["exceeds_capacity"], true);
    assert_eq!(p["first_exceeding"]["line"], 35, "{p}");
    assert_eq!(
        p["first_exceeding"]["source"]["findings"][0]["code"],
        "OOM101"
    );
    // At 400 MB the division tips it over, while the mask from line 35 is still held.
    let v = profile_json_exit(
        &["--predict", "batch_size=3", "--capacity", "400MB", &a, &b],
        1,
    );
    let p = &v["scaling"]["prediction"];
    assert_eq!(p["largest_live"]["line"], 35, "{p}");
    // A large capacity fits.
    let v = profile_json(&["--predict", "batch_size=3", "--capacity", "61GiB", &a, &b]);
    assert_eq!(v["scaling"]["prediction"]["exceeds_capacity"], false);
}

#[test]
fn ascend_report_sections() {
    let out = run_in(
        &repo(),
        &["profile", &sample("ascend/constructed_bs2_ascend_pt")],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    for needle in [
        "1. Peak: PTA allocated 51,315,408,896 B (47.79 GiB)",
        "2. Static: 12,031,361,024 B (11.21 GiB)",
        "APP - PTA reserved = 3,649,044,480 B (3.40 GiB) (3,480 MiB)",
        "CANN module memory (runtime components outside PyTorch): 3,347 MiB",
        "#1 34,919,153,664 B (32.52 GiB) x2",
        "/workspace/model/modeling_tiny.py:35",
    ] {
        assert!(text.contains(needle), "missing `{needle}` in\n{text}");
    }
}

#[test]
fn text_report_shows_the_source_finding() {
    let src = source_dir();
    let out = run_in(
        &repo(),
        &[
            "profile",
            "--top",
            "3",
            "--source",
            &src,
            &sample("torch-cpu/expand_then_cast_bs2.trace.json"),
        ],
        None,
    );
    let text = stdout(&out);
    assert!(
        text.contains("1. Peak: allocator allocated 328,335,360 B"),
        "{text}"
    );
    assert!(text.contains("#1 201,326,592 B (192.00 MiB) x2"), "{text}");
    assert!(text.contains("[materialized broadcast]"), "{text}");
    assert!(
        text.contains("tiny_model.py:35  attn_mask = attn_mask.bool()"),
        "{text}"
    );
    assert!(text.contains("OOM101 cast-after-expand"), "{text}");
    assert!(!text.contains("#4 "), "--top 3: {text}");
}

#[test]
fn html_is_self_contained_with_a_plot() {
    let src = source_dir();
    let out = run_in(
        &repo(),
        &[
            "profile",
            "--format",
            "html",
            "--source",
            &src,
            &sample("torch-cpu/expand_then_cast_bs2.trace.json"),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let html = stdout(&out);
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("<svg"), "no plot");
    assert!(html.contains("class=\"allocated\""), "no allocated series");
    assert!(html.contains("class=\"hot\""), "no hot allocation");
    assert!(
        html.contains(
            "<title>#1 aten::to 201,326,592 B at tiny_model.py:35, input [2,24,2048,2048]"
        ),
        "hover of the hot allocation"
    );
    assert!(html.contains("tiny_model.py:35"));
    // What a colleague needs to read the chart: axes with units, the peak, a legend of the bands
    // and of the series that exist, the curve after the fix, and a width that follows the window.
    assert!(
        html.contains("time since the first sample (s)"),
        "time axis title"
    );
    assert!(html.contains(">100 MiB</text>"), "round byte ticks");
    assert!(html.contains("class=\"peak\""), "peak marker");
    assert!(html.contains("peak 313.1 MiB at 1.73 s"), "peak label");
    assert!(
        html.contains("#1 aten::to at tiny_model.py:35 (prepare_mask): 192.0 MiB x2"),
        "band legend"
    );
    assert!(
        !html.contains("class=\"reserved\""),
        "a CPU trace has no reserved series"
    );
    assert!(
        !html.contains(">reserved</li>"),
        "no legend entry without data"
    );
    assert!(html.contains("class=\"after-fix\""), "after-fix curve");
    assert!(html.contains("after fixing tiny_model.py:35 (peak 125.1 MiB, -60.0%)"));
    assert!(
        html.contains(".chart{width:100%;height:auto"),
        "width follows the window"
    );
    for external in [
        "<script src",
        "<link",
        "src=\"http",
        "href=\"http",
        "@import",
    ] {
        assert!(!html.contains(external), "external asset: {external}");
    }
    assert!(html.trim_end().ends_with("</html>"));
}

#[test]
fn bad_evidence_in_profile() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = dir.path().join("broken.pickle");
    std::fs::write(&bad, b"\x80\x04\x95garbage").expect("write");
    let good = sample("torch-cpu/expand_then_cast_bs2.trace.json");
    let out = run_in(&repo(), &["profile", &bad.to_string_lossy(), &good], None);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("broken.pickle"), "{err}");
    assert!(stdout(&out).contains("1. Peak"));
    let out = run_in(&repo(), &["profile", &bad.to_string_lossy()], None);
    assert_eq!(out.status.code(), Some(2));
}

/// Weights loaded before the forward (18 GiB at run_decode.py:23) are static memory: listed in
/// the static section, never a hot allocation; the mask cast is the top hot site.
#[test]
fn snapshot_weights_are_static_not_hot() {
    let v = profile_json(&[&sample(
        "cuda-snapshot/constructed_cuda_snapshot_bs2.pickle",
    )]);
    let p = &v["profiles"][0];
    assert_eq!(
        p["static"]["static_bytes"], 19_327_352_832u64,
        "{}",
        p["static"]
    );
    let held = &p["static"]["allocations"][0];
    assert_eq!(held["site"]["line"], 23, "{held}");
    assert_eq!(held["count"], 8);
    let hot = p["hot"].as_array().expect("hot");
    assert!(
        hot.iter().all(|h| h["site"]["line"] != 23),
        "weights among hot allocations: {hot:?}"
    );
    assert_eq!(hot[0]["site"]["line"], 35, "{}", hot[0]);
    assert_eq!(hot[0]["live_at_peak_bytes"], 4_364_894_208u64);
}

/// Hot sites are ranked by what they hold at the peak: on the bs2 trace the cast holds one
/// 192 MiB mask at the peak (the other layer's copy is freed), ahead of everything else.
#[test]
fn hot_sites_are_ranked_by_bytes_live_at_the_peak() {
    let v = profile_json(&[&sample("torch-cpu/expand_then_cast_bs2.trace.json")]);
    let hot = v["profiles"][0]["hot"].as_array().expect("hot").clone();
    let live: Vec<u64> = hot
        .iter()
        .map(|h| h["live_at_peak_bytes"].as_u64().expect("live"))
        .collect();
    let mut sorted = live.clone();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(live, sorted, "{hot:?}");
    assert_eq!(hot[0]["site"]["line"], 35);
    assert_eq!(live[0], 201_326_592);
}

/// What the fix buys, checked against measurement: the buggy bs=2 trace with the cast replayed
/// small gives the fixed bs=2 trace's peak; bs 1 and 2 predict the fixed bs=3 peak.
#[test]
fn the_peak_after_the_fix_matches_the_fixed_traces() {
    const FIXED_BS2_PEAK: f64 = 131_203_072.0;
    const FIXED_BS3_PEAK: f64 = 194_707_456.0;
    let v = profile_json(&[&sample("torch-cpu/expand_then_cast_bs2.trace.json")]);
    let e = &v["profiles"][0]["fix_effects"][0];
    assert_eq!(e["line"], 35, "{e}");
    let after = e["peak_after_fix_bytes"].as_f64().expect("after");
    assert!(
        (after - FIXED_BS2_PEAK).abs() / FIXED_BS2_PEAK < 0.05,
        "{after}"
    );

    let a = format!(
        "{}@batch_size=1",
        sample("torch-cpu/expand_then_cast_bs1.trace.json")
    );
    let b = format!(
        "{}@batch_size=2",
        sample("torch-cpu/expand_then_cast_bs2.trace.json")
    );
    let v = profile_json(&[&a, &b, "--predict", "batch_size=3", "--capacity", "1GiB"]);
    // For CI: the prediction exceeds 400 MiB (exit 1) and fits in 1 GiB (exit 0).
    profile_json_exit(
        &[&a, &b, "--predict", "batch_size=3", "--capacity", "400MiB"],
        1,
    );
    let af = &v["scaling"]["after_fix"];
    assert_eq!(af["line"], 35, "{af}");
    let predicted = af["predicted_peak_after_fix_bytes"]
        .as_f64()
        .expect("predicted");
    assert!(
        (predicted - FIXED_BS3_PEAK).abs() / FIXED_BS3_PEAK < 0.05,
        "{predicted}"
    );
    assert_eq!(af["fits_after_fix"], true);

    let out = run_in(
        &repo(),
        &["profile", &a, &b, "--predict", "batch_size=3"],
        None,
    );
    let text = stdout(&out);
    assert!(
        text.contains(
            "fixing tiny_model.py:35 lowers the peak from 313.1 MiB to 125.1 MiB (-60.0%)"
        ),
        "{text}"
    );
    assert!(
        text.contains("after fixing tiny_model.py:35: peak 194,707,456 B"),
        "{text}"
    );
}

/// With several profiles the page charts peak against the dimension: the fit, the prediction,
/// the capacity and the after-fix line.
#[test]
fn html_prediction_chart() {
    let a = format!(
        "{}@batch_size=1",
        sample("torch-cpu/expand_then_cast_bs1.trace.json")
    );
    let b = format!(
        "{}@batch_size=2",
        sample("torch-cpu/expand_then_cast_bs2.trace.json")
    );
    let out = run_in(
        &repo(),
        &[
            "profile",
            "--format",
            "html",
            &a,
            &b,
            "--predict",
            "batch_size=3",
            "--capacity",
            "400MiB",
        ],
        None,
    );
    let html = stdout(&out);
    assert!(
        html.contains("aria-label=\"peak against batch_size\""),
        "no scaling chart"
    );
    for needle in [
        "class=\"fit\"",
        "class=\"fit-after-fix\"",
        "class=\"capacity\"",
        "capacity 400.0 MiB",
        "predicted 469.7 MiB at batch_size=3",
        "after fix 185.7 MiB",
    ] {
        assert!(html.contains(needle), "missing `{needle}`");
    }
}

/// torch's `memory_timeline.json` export is none of the formats: exit 2, naming the file and what
/// was looked for.
#[test]
fn a_file_in_no_known_format_exits_2() {
    let file = sample("torch-cpu/expand_then_cast_bs2.memory_timeline.json");
    let out = run_in(&repo(), &["profile", &file], None);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "{file}: not a recognised evidence format (looked for: torch.profiler trace, CUDA snapshot, Ascend profiler folder, OOM log"
        )),
        "{err}"
    );
    // One error, not the log reader's own as well.
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!err.contains("no out-of-memory message"), "{err}");
}

/// A trace without `CallFrom` names only `file(def_line): function`; with the source at hand the
/// measured operator places the allocation on its expression: `aten::div` on the `/` at line
/// 48, not the `def` at line 38.
#[test]
fn function_level_frames_name_the_operator_line() {
    let a = format!(
        "{}@batch_size=1",
        sample("torch-cpu/expand_then_cast_bs1.trace.json")
    );
    let b = format!(
        "{}@batch_size=2",
        sample("torch-cpu/expand_then_cast_bs2.trace.json")
    );
    let src = source_dir();
    let v = profile_json_exit(
        &[
            "--source",
            &src,
            &a,
            &b,
            "--predict",
            "batch_size=3",
            "--capacity",
            "400MiB",
        ],
        1,
    );
    let first = &v["scaling"]["prediction"]["first_exceeding"];
    assert_eq!(first["op"], "aten::div", "{first}");
    assert_eq!(first["line"], 48, "{first}");
    assert_eq!(first["source"]["line"], 48, "{first}");
    assert_eq!(first["source"]["line_match"], "in_function", "{first}");
    // The hot list's sources: the `~` of line 49 for `aten::bitwise_not`.
    let p = &v["profiles"][1];
    let hot = p["hot"].as_array().expect("hot");
    let i = hot
        .iter()
        .position(|h| h["op"] == "aten::bitwise_not")
        .expect("bitwise_not");
    assert_eq!(p["sources"][i]["line"], 49, "{}", p["sources"][i]);
}
