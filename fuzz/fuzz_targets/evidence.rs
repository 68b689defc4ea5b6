//! Arbitrary bytes through every evidence reader: each returns Ok or Err, never panics.
//! The bytes go to `evidence::load` (kind detected from the content), straight to the pickle
//! decoder, the snapshot, Chrome trace and OOM log readers, and (as one of the CSV files or the
//! trace_view.json picked by the first byte) into an Ascend profiler folder. Whatever `load` reads
//! also goes through the whole `profile` report (alone and as two labelled runs with a
//! prediction) in every format.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

fn dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("oomlint-fuzz-evidence-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("temp dir");
        d
    })
}

// The body lives in the library so that tests/it/fuzz_regressions.rs replays exactly the same
// calls.
fuzz_target!(|data: &[u8]| {
    oomlint::testing::exercise_evidence_bytes(data, dir()).expect("write in the temp dir");
});
