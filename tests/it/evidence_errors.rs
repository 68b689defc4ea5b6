//! Evidence readers on malformed and hostile input: every failure is an `EvidenceError` that
//! renders on one line with the path and the byte offset or CSV row; nothing panics or runs.

use oomlint::evidence::{EvidenceError, EvidenceKind, Location, detect, load};
use std::path::{Path, PathBuf};

fn sample(rel: &str) -> PathBuf {
    crate::common::samples().join(rel)
}

fn err_of(path: &Path) -> EvidenceError {
    match load(path) {
        Ok(ev) => panic!("{} loaded as {:?}", path.display(), ev.kind),
        Err(e) => e,
    }
}

fn one_line_with_path(e: &EvidenceError, path: &Path) -> String {
    let s = e.to_string();
    assert!(!s.contains('\n'), "one line: {s}");
    assert!(
        s.starts_with(&path.display().to_string()),
        "names the path: {s}"
    );
    s
}

#[test]
fn truncated_trace_reports_byte_offset() {
    let data = std::fs::read(sample("torch-cpu/expand_then_cast_bs2.trace.json")).expect("read");
    let dir = tempfile::tempdir().expect("tmp");
    let p = dir.path().join("cut.trace.json");
    std::fs::write(&p, &data[..100_000]).expect("write");
    let e = err_of(&p);
    let s = one_line_with_path(&e, &p);
    assert!(s.contains("truncated JSON"), "{s}");
    assert!(s.contains("byte 100000"), "{s}");
    assert!(matches!(
        e.location,
        Location::Byte {
            offset: 100_000,
            ..
        }
    ));
}

#[test]
fn json_without_trace_events_is_refused() {
    let dir = tempfile::tempdir().expect("tmp");
    let p = dir.path().join("x.json");
    std::fs::write(&p, br#"{"schemaVersion": 1, "other": [1, 2]}"#).expect("write");
    let s = one_line_with_path(&err_of(&p), &p);
    assert!(s.contains("no traceEvents"), "{s}");
}

#[test]
fn corrupt_gzip_is_an_error() {
    use std::io::Write;
    let data = std::fs::read(sample("torch-cpu/expand_then_cast_bs2.trace.json")).expect("read");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(&data).expect("gz");
    let gz = enc.finish().expect("gz");
    let dir = tempfile::tempdir().expect("tmp");
    // Garbage in the deflate stream.
    let mut bad = gz.clone();
    for b in &mut bad[200..400] {
        *b ^= 0x5a;
    }
    let p = dir.path().join("bad.json.gz");
    std::fs::write(&p, &bad).expect("write");
    assert_eq!(detect(&p), Ok(EvidenceKind::ChromeTrace));
    let e = err_of(&p);
    let s = one_line_with_path(&e, &p);
    assert!(matches!(e.location, Location::Byte { .. }), "{s}");
    // Truncated gzip.
    let p = dir.path().join("cut.json.gz");
    std::fs::write(&p, &gz[..gz.len() / 2]).expect("write");
    let s = one_line_with_path(&err_of(&p), &p);
    assert!(s.contains("byte "), "{s}");
}

#[test]
fn malicious_pickle_is_refused_and_runs_nothing() {
    let dir = tempfile::tempdir().expect("tmp");
    let marker = dir.path().join("pwned");
    let cmd = format!("touch {}", marker.display());
    // Protocol 2: GLOBAL os.system, the command, TUPLE1, REDUCE, STOP.
    let mut p = b"\x80\x02cos\nsystem\nq\x00X".to_vec();
    p.extend_from_slice(&(cmd.len() as u32).to_le_bytes());
    p.extend_from_slice(cmd.as_bytes());
    p.extend_from_slice(b"q\x01\x85q\x02Rq\x03.");
    let path = dir.path().join("evil.pickle");
    std::fs::write(&path, &p).expect("write");
    assert_eq!(detect(&path), Ok(EvidenceKind::CudaSnapshot));
    let e = err_of(&path);
    let s = one_line_with_path(&e, &path);
    assert!(s.contains("pickle calls code (opcode GLOBAL os.system at byte 2); refusing: snapshots are plain data"), "{s}");
    assert!(matches!(e.location, Location::Byte { offset: 2, .. }));
    assert!(!marker.exists(), "nothing ran");

    // Protocol 4: STACK_GLOBAL with the names pushed as strings.
    let mut p =
        b"\x80\x04\x95\x00\x00\x00\x00\x00\x00\x00\x00\x8c\x02os\x94\x8c\x06system\x94\x93\x94"
            .to_vec();
    p.push(0x8c);
    p.push(cmd.len() as u8);
    p.extend_from_slice(cmd.as_bytes());
    p.extend_from_slice(b"\x94\x85\x94R\x94.");
    let path = dir.path().join("evil4.pickle");
    std::fs::write(&path, &p).expect("write");
    let s = one_line_with_path(&err_of(&path), &path);
    assert!(
        s.contains("opcode STACK_GLOBAL os.system at byte 25"),
        "{s}"
    );
    assert!(!marker.exists(), "nothing ran");
}

#[test]
fn data_pickle_that_is_not_a_snapshot() {
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("other.pickle");
    // pickle.dumps({'a': 1}, protocol=2)
    std::fs::write(&path, b"\x80\x02}q\x00X\x01\x00\x00\x00aq\x01K\x01s.").expect("write");
    let s = one_line_with_path(&err_of(&path), &path);
    assert!(s.contains("not a CUDA memory snapshot"), "{s}");
    // A truncated real snapshot.
    let data =
        std::fs::read(sample("cuda-snapshot/constructed_cuda_snapshot_bs2.pickle")).expect("read");
    let path = dir.path().join("cut.pickle");
    std::fs::write(&path, &data[..data.len() / 2]).expect("write");
    let s = one_line_with_path(&err_of(&path), &path);
    assert!(s.contains("truncated pickle"), "{s}");
}

fn copy_ascend(dir: &Path) -> PathBuf {
    let src = sample("ascend/constructed_bs2_ascend_pt/ASCEND_PROFILER_OUTPUT");
    let dst = dir.join("w_1_20260101000000000_ascend_pt/ASCEND_PROFILER_OUTPUT");
    std::fs::create_dir_all(&dst).expect("mkdir");
    for entry in std::fs::read_dir(&src).expect("ls") {
        let entry = entry.expect("entry");
        std::fs::copy(entry.path(), dst.join(entry.file_name())).expect("copy");
    }
    dst
}

#[test]
fn csv_missing_column_names_it() {
    let dir = tempfile::tempdir().expect("tmp");
    let out = copy_ascend(dir.path());
    let f = out.join("operator_memory.csv");
    let text = std::fs::read_to_string(&f).expect("read");
    std::fs::write(&f, text.replacen("Size(KB)", "Bytes", 1)).expect("write");
    let e = err_of(out.parent().expect("parent"));
    let s = one_line_with_path(&e, &f);
    assert_eq!(e.location, Location::Row(1));
    assert!(s.contains("row 1: missing column \"Size(KB)\""), "{s}");
}

#[test]
fn csv_bad_cell_names_the_row() {
    let dir = tempfile::tempdir().expect("tmp");
    let out = copy_ascend(dir.path());
    let f = out.join("memory_record.csv");
    let text = std::fs::read_to_string(&f).expect("read");
    // Row 3 (the second data row) gets a non-numeric reserved cell.
    let text = text.replacen("52420.0", "lots", 1);
    std::fs::write(&f, text).expect("write");
    let e = err_of(&out);
    let s = one_line_with_path(&e, &f);
    assert_eq!(e.location, Location::Row(3), "{s}");
    assert!(s.contains("not a number"), "{s}");
}

#[test]
fn log_without_oom_line() {
    let dir = tempfile::tempdir().expect("tmp");
    let p = dir.path().join("run.log");
    std::fs::write(
        &p,
        "Traceback (most recent call last):\n  File \"/w/a.py\", line 3, in <module>\n    f()\nValueError: nope\n",
    )
    .expect("write");
    assert_eq!(detect(&p), Ok(EvidenceKind::OomLog));
    let s = one_line_with_path(&err_of(&p), &p);
    assert!(s.contains("not a recognised evidence format"), "{s}");
    assert!(s.contains("OOM log"), "{s}");
    assert!(!s.contains("no out-of-memory message"), "{s}");
}

#[test]
fn missing_file_and_plain_folder() {
    let dir = tempfile::tempdir().expect("tmp");
    let p = dir.path().join("nope.json");
    one_line_with_path(&err_of(&p), &p);
    let s = one_line_with_path(&err_of(dir.path()), dir.path());
    assert!(s.contains("not Ascend profiler output"), "{s}");
}
