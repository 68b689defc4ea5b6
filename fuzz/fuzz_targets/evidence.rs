//! Arbitrary bytes through every evidence reader: each returns Ok or Err, never panics.
//! The bytes go to `evidence::load` (kind detected from the content), straight to the pickle
//! decoder, the snapshot, Chrome trace and OOM log readers, and (as one of the CSV files or the
//! trace_view.json picked by the first byte) into an Ascend profiler folder. Whatever `load` reads
//! also goes through the whole `profile` report (alone and as two labelled runs with a
//! prediction) in every format.
#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use oomlint::evidence::{self, ascend, chrome_trace, oom_log, pickle, snapshot};

fn dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("oomlint-fuzz-evidence-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("temp dir");
        d
    })
}

const ASCEND_FILES: [&str; 5] = [
    "operator_memory.csv",
    "memory_record.csv",
    "npu_module_mem.csv",
    "kernel_details.csv",
    "trace_view.json",
];

fuzz_target!(|data: &[u8]| {
    let file = dir().join("evidence.bin");
    std::fs::write(&file, data).expect("write temp evidence");
    if let Ok(ev) = evidence::load(&file) {
        let _ = oomlint::profile::report_in_every_format(ev);
    }

    let _ = pickle::decode(data);
    let _ = snapshot::read_bytes(data, Path::new("fuzz.pickle"));
    let _ = chrome_trace::read_from(data, Path::new("fuzz.json"), false);
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = oom_log::read_str(text, Path::new("fuzz.log"));
    }

    if let Some((&first, rest)) = data.split_first() {
        let ascend_dir = dir().join("ascend");
        let out = ascend_dir.join("ASCEND_PROFILER_OUTPUT");
        let _ = std::fs::remove_dir_all(&ascend_dir);
        std::fs::create_dir_all(&out).expect("ascend dir");
        let name = ASCEND_FILES[first as usize % ASCEND_FILES.len()];
        std::fs::write(out.join(name), rest).expect("write ascend file");
        if let Ok(ev) = ascend::read_dir(&ascend_dir) {
            let _ = oomlint::profile::report_in_every_format(ev);
        }
    }
});
