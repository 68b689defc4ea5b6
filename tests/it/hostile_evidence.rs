//! Hostile evidence through the built binary: pickles built to blow up, logs that only look like
//! JSON, overlong lines, traces naming hundreds of devices, CSV with stray quotes. Each run ends
//! with its documented exit code and one error line naming the file, and never panics.
//! (The gigabyte-sized versions are in scripts/hostile_limits.sh, measured with /usr/bin/time.)

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::*;

fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().expect("tempdir")
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write file");
    path
}

fn profile(dir: &Path, args: &[&str]) -> Output {
    let mut all = vec!["profile"];
    all.extend_from_slice(args);
    let out = run_in(dir, &all, None);
    let err = stderr(&out);
    assert!(!err.contains("panicked"), "panic:\n{err}");
    assert!(
        matches!(out.status.code(), Some(0..=2)),
        "{:?}\n{err}",
        out.status
    );
    out
}

/// Exit 2 with exactly one `error:` line for `file`, containing `needle`, plus the summary line.
fn assert_refused(out: &Output, file: &str, needle: &str) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("error:")).collect();
    assert_eq!(lines.len(), 1, "one error, naming the file:\n{err}");
    assert!(
        lines[0].starts_with(&format!("oomlint: error: {file}: ")) && lines[0].contains(needle),
        "{err}"
    );
}

// Protocol-2 pickle opcodes, assembled by hand: nothing here is ever executed.
fn s(text: &str) -> Vec<u8> {
    let mut v = vec![b'X'];
    v.extend_from_slice(&(text.len() as u32).to_le_bytes());
    v.extend_from_slice(text.as_bytes());
    v
}

fn int(n: i32) -> Vec<u8> {
    let mut v = vec![b'J'];
    v.extend_from_slice(&n.to_le_bytes());
    v
}

fn put(k: u32) -> Vec<u8> {
    let mut v = vec![b'r'];
    v.extend_from_slice(&k.to_le_bytes());
    v
}

fn get(k: u32) -> Vec<u8> {
    let mut v = vec![b'j'];
    v.extend_from_slice(&k.to_le_bytes());
    v
}

/// `{"segments": [segment] * n}` where segment's blocks are `[block] * n`: n*n blocks from a
/// pickle of about 10*n bytes.
fn amplified_snapshot(n: usize) -> Vec<u8> {
    let mut p = vec![0x80, 2];
    p.extend([b'}'].iter().chain(&put(0)).chain(b"("));
    for part in [s("size"), int(1 << 20), s("state"), s("active_allocated")] {
        p.extend(part);
    }
    p.extend(s("frames"));
    p.extend(b"]u");
    p.extend(b"]");
    p.extend(put(1));
    p.push(b'(');
    for _ in 0..n {
        p.extend(get(0));
    }
    p.extend(b"e0");
    p.push(b'}');
    p.extend(put(2));
    p.push(b'(');
    for part in [
        s("device"),
        int(0),
        s("total_size"),
        int(1 << 30),
        s("blocks"),
        get(1),
    ] {
        p.extend(part);
    }
    p.extend(b"u0");
    p.extend(b"}(");
    p.extend(s("segments"));
    p.extend(b"](");
    for _ in 0..n {
        p.extend(get(2));
    }
    p.extend(b"eu.");
    p
}

#[test]
fn shared_reference_bomb_is_refused_quickly() {
    let dir = tempdir();
    // 3,000 x 3,000 = 9 million blocks named by a 60 KB pickle.
    write(dir.path(), "bomb.pickle", &amplified_snapshot(3_000));
    let out = profile(dir.path(), &["bomb.pickle"]);
    assert_refused(&out, "bomb.pickle", "refusing");
}

#[test]
fn a_few_shared_references_are_still_read() {
    // The same construction at 20 x 20 is an ordinary (if odd) snapshot: 400 blocks of 1 MiB.
    let dir = tempdir();
    write(dir.path(), "small.pickle", &amplified_snapshot(20));
    let out = profile(dir.path(), &["small.pickle", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let hot = &v["profiles"][0]["hot"][0];
    assert_eq!(hot["bytes"], 1 << 20, "{hot}");
    assert_eq!(hot["count"], 400, "{hot}");
}

#[test]
fn wide_dict_and_deep_nesting_and_mark_floods_are_refused_or_read() {
    let dir = tempdir();
    // A root dict of 200,000 distinct keys next to an empty segment list: read (linear time).
    let mut wide = vec![0x80, 2, b'}', b'('];
    for k in 0..200_000 {
        wide.extend(int(k));
        wide.extend(int(k));
    }
    wide.extend(s("segments"));
    wide.extend(b"]u.");
    write(dir.path(), "wide.pickle", &wide);
    let out = profile(dir.path(), &["wide.pickle"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    let mut deep = vec![0x80, 2];
    deep.extend(std::iter::repeat_n(b']', 100_000));
    deep.extend(std::iter::repeat_n(b'a', 99_999));
    deep.push(b'.');
    write(dir.path(), "deep.pickle", &deep);
    assert_refused(
        &profile(dir.path(), &["deep.pickle"]),
        "deep.pickle",
        "deeper than",
    );

    let mut marks = vec![0x80, 2];
    marks.extend(std::iter::repeat_n(b'(', 1_000_000));
    marks.push(b'.');
    write(dir.path(), "marks.pickle", &marks);
    assert_refused(
        &profile(dir.path(), &["marks.pickle"]),
        "marks.pickle",
        "MARKs",
    );

    let mut cycle = vec![0x80, 2, b'}', b'('];
    cycle.extend(s("segments"));
    cycle.push(b']');
    cycle.extend(put(0));
    cycle.extend(get(0));
    cycle.extend(b"au.");
    write(dir.path(), "cycle.pickle", &cycle);
    assert_refused(
        &profile(dir.path(), &["cycle.pickle"]),
        "cycle.pickle",
        "cycle",
    );
}

#[test]
fn log_lines_starting_with_brackets_are_a_log_not_json() {
    let dir = tempdir();
    let mut log = String::new();
    for step in 0..20_000 {
        log.push_str(&format!(
            "[2026-11-29 11:00:00,000] INFO step {step} | loss 2.34\n"
        ));
    }
    write(dir.path(), "train.log", log.as_bytes());
    assert_refused(
        &profile(dir.path(), &["train.log"]),
        "train.log",
        "not a recognised evidence format",
    );

    log.push_str(
        "[2026-11-29 11:00:01,000] ERROR torch.OutOfMemoryError: CUDA out of memory. Tried to \
         allocate 48.78 GiB. GPU 0 has a total capacity of 79.10 GiB of which 3.20 GiB is free.\n",
    );
    write(dir.path(), "train.log", log.as_bytes());
    let out = profile(dir.path(), &["train.log"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("48.78 GiB"), "{}", stdout(&out));
}

#[test]
fn overlong_lines_do_not_hide_the_oom_message() {
    // 8 MB without a newline (a binary blob, a minified dump), then a real OOM message.
    let dir = tempdir();
    let mut log = vec![b'x'; 8 << 20];
    log.extend_from_slice(
        b"\nRuntimeError: NPU out of memory. Tried to allocate 48.78 GiB (NPU 0; 60.96 GiB total \
          capacity; 13.22 GiB already allocated; 2.01 GiB free)\n",
    );
    write(dir.path(), "npu.log", &log);
    let out = profile(dir.path(), &["npu.log"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("48.78 GiB"), "{}", stdout(&out));

    write(dir.path(), "blob.log", &vec![b'y'; 8 << 20]);
    assert_refused(
        &profile(dir.path(), &["blob.log"]),
        "blob.log",
        "not a recognised evidence format",
    );
}

#[test]
fn memory_events_of_hundreds_of_devices_are_capped_with_a_note() {
    let dir = tempdir();
    let mut events = Vec::new();
    for d in 0..400 {
        events.push(format!(
            r#"{{"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":{ts},"args":{{"Bytes":4096,"Total Allocated":4096,"Device Type":1,"Device Id":{d}}}}}"#,
            ts = 100 + d
        ));
    }
    let trace = format!(r#"{{"traceEvents":[{}]}}"#, events.join(","));
    write(dir.path(), "devices.json", trace.as_bytes());
    let out = profile(dir.path(), &["devices.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "oomlint: note: devices.json: 144 [memory] events of devices past the first 256 left out"
        ),
        "{}",
        stderr(&out)
    );
}

#[test]
fn csv_with_stray_quotes_names_the_row() {
    let src = samples().join("ascend/constructed_bs2_ascend_pt");
    let dir = tempdir();
    let out_dir = dir.path().join("run_ascend_pt/ASCEND_PROFILER_OUTPUT");
    std::fs::create_dir_all(&out_dir).expect("mkdir");
    for entry in std::fs::read_dir(src.join("ASCEND_PROFILER_OUTPUT")).expect("sample folder") {
        let entry = entry.expect("entry");
        let text = std::fs::read(entry.path()).expect("read sample");
        std::fs::write(out_dir.join(entry.file_name()), text).expect("copy sample");
    }
    let csv = out_dir.join("operator_memory.csv");
    let text = std::fs::read_to_string(&csv).expect("csv");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    // A doubled quote inside a quoted cell is fine; a quoted cell left open is not.
    let rest = lines[1]
        .split_once(',')
        .map(|(_, r)| r.to_string())
        .expect("row");
    lines[1] = format!("\"aten::\"\"to\"\"\",{rest}");
    lines.push("\"aten::never_closed,1024,2048".to_string());
    std::fs::write(&csv, lines.join("\n") + "\n").expect("write csv");
    let out = profile(dir.path(), &["run_ascend_pt"]);
    let row = lines.len();
    assert_refused(
        &out,
        "run_ascend_pt/ASCEND_PROFILER_OUTPUT/operator_memory.csv",
        &format!("row {row}:"),
    );
}

#[test]
fn truncated_trace_corrupt_gzip_and_foreign_pickle_name_file_and_offset() {
    let dir = tempdir();
    let real = std::fs::read(repo().join("testdata/profiles/crossattn_buggy_bs2.trace.json"))
        .expect("own trace");
    let cut = real.len() / 2;
    write(dir.path(), "cut.json", &real[..cut]);
    assert_refused(
        &profile(dir.path(), &["cut.json"]),
        "cut.json",
        &format!("byte {cut}: truncated"),
    );

    // A gzip header followed by bytes that are not deflate data.
    let mut gz = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3];
    gz.extend((0..4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8));
    write(dir.path(), "bad.json.gz", &gz);
    assert_refused(
        &profile(dir.path(), &["bad.json.gz"]),
        "bad.json.gz",
        "gzip",
    );

    // pickle.dumps([1, 2, 3], protocol=2): data, but not a snapshot.
    let list = [0x80, 2, b']', b'(', b'K', 1, b'K', 2, b'K', 3, b'e', b'.'];
    write(dir.path(), "list.pickle", &list);
    assert_refused(
        &profile(dir.path(), &["list.pickle"]),
        "list.pickle",
        "not a CUDA memory snapshot",
    );

    // Next to good evidence, a bad file is one error line and the run goes on: findings are
    // reported and the exit code is at least 1.
    std::fs::write(
        dir.path().join("model.py"),
        "def f(m, b, h, s):\n    m = m.expand(b, h, s, -1)\n    return m.bool()\n",
    )
    .expect("model");
    let good = repo().join("testdata/profiles/crossattn_buggy_bs2.trace.json");
    let out = run_in(
        dir.path(),
        &[
            "check",
            "--isolated",
            "--output-format",
            "concise",
            "model.py",
            "--profile",
            "cut.json",
            "--profile",
            good.to_str().expect("utf-8 path"),
        ],
        None,
    );
    // The bad file is a usage error (exit 2); the good one is still read and reported.
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("model.py:3:14: warning OOM101"),
        "{}",
        stdout(&out)
    );
    let errors: Vec<String> = stderr(&out)
        .lines()
        .filter(|l| l.contains("error:"))
        .map(str::to_string)
        .collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].starts_with("oomlint: error: cut.json: byte "),
        "{errors:?}"
    );
}
