//! Property checks shared by the fuzz targets (`fuzz/`) and their regression replays: compiled for
//! tests and with the `fuzzing` feature only, so the product's module graph never depends on them
//! (the evidence harness renders reports, which would make `profile` depend on `report`).

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use crate::analysis::SummaryTable;
use crate::config::Settings;
use crate::diagnostic::{Applicability, Fix};
use crate::evidence::Evidence;
use crate::{fix, linter, profile, source};

/// The properties every fix must keep, checked on one text (used by the fuzz target and its
/// regression tests): each edit lies in the text on character boundaries, the edits applied
/// together never overlap, the fixed text parses when the input did, and fixing it again changes
/// nothing (unless the first pass reported that it did not converge).
pub fn check_fix_round_trip(text: &str, settings: &Settings) -> Result<(), String> {
    let path = Path::new("fuzz.py");
    let result = linter::lint_source(
        text,
        path,
        Arc::from("fuzz.py"),
        settings,
        Arc::default(),
        &[],
    );
    let fixes: Vec<&Fix> = result
        .reports
        .iter()
        .flat_map(|r| r.diagnostics.iter())
        .filter_map(|d| d.fix.as_ref())
        .filter(|f| f.applicability != Applicability::DisplayOnly)
        .collect();
    if fixes.is_empty() {
        return Ok(());
    }
    for e in fixes.iter().flat_map(|f| f.edits.iter()) {
        let (s, t) = (e.range.start().to_usize(), e.range.end().to_usize());
        if s > t || t > text.len() || !text.is_char_boundary(s) || !text.is_char_boundary(t) {
            return Err(format!(
                "edit {s}..{t} is outside the text or splits a character"
            ));
        }
    }
    let (mut taken, _) = fix::selected_edits(&fixes);
    taken.sort_by_key(|e| (e.range.start(), e.range.end()));
    if let Some(pair) = taken
        .windows(2)
        .find(|p| p[0].range.end() > p[1].range.start())
    {
        return Err(format!(
            "applied edits overlap: {:?} and {:?}",
            pair[0].range, pair[1].range
        ));
    }
    let had_errors = !source::parse_module(text, false).syntax_errors.is_empty();
    let module = linter::module_info(path, Arc::from("fuzz.py"), &Mutex::new(HashMap::new()));
    let summaries = SummaryTable::default();
    let once = linter::fix_text(text, path, &module, settings, &summaries, true);
    if !had_errors
        && !source::parse_module(&once.text, false)
            .syntax_errors
            .is_empty()
    {
        return Err(format!("the fixed text does not parse:\n{}", once.text));
    }
    let twice = linter::fix_text(&once.text, path, &module, settings, &summaries, true);
    if !once.notes.iter().any(|n| n.contains("did not converge")) && once.text != twice.text {
        return Err("a second fix changed the text".to_string());
    }
    Ok(())
}

/// Everything `oomlint profile` does with evidence once read, on one piece of evidence: the
/// report alone, then as two labelled runs with a prediction and a capacity, written in every
/// format. The evidence fuzz target and its regression replay call this so that the report's
/// arithmetic sees the readers' strangest output.
pub fn report_in_every_format(ev: Evidence) -> std::io::Result<()> {
    let alone = profile::build(
        &[(ev.clone(), None)],
        &profile::ProfileRequest {
            top: 10,
            predict: None,
            capacity: None,
        },
        None,
    );
    let scaled = profile::build(
        &[
            (ev.clone(), Some(("batch_size".to_string(), 1.0))),
            (ev, Some(("batch_size".to_string(), 2.0))),
        ],
        &profile::ProfileRequest {
            top: 10,
            predict: Some(("batch_size".to_string(), 64.0)),
            capacity: Some(80 << 30),
        },
        None,
    );
    let mut sink = Vec::new();
    for output in [&alone, &scaled] {
        crate::report::profile::write_text(&mut sink, output)?;
        crate::report::profile::write_json(&mut sink, output)?;
        crate::report::profile::write_html(&mut sink, output)?;
        sink.clear();
    }
    Ok(())
}

/// Ascend profiler files the evidence fuzz target writes its bytes into, picked by the first byte.
const ASCEND_FILES: [&str; 5] = [
    "operator_memory.csv",
    "memory_record.csv",
    "npu_module_mem.csv",
    "kernel_details.csv",
    "trace_view.json",
];

/// The evidence fuzz target's body, shared with its regression replay: arbitrary bytes through
/// every reader (as a file for `evidence::load`, straight to the pickle decoder and the snapshot,
/// Chrome trace and OOM log readers, and as one Ascend file in `dir/ascend`), and whatever a
/// reader returns through [`report_in_every_format`]. Errors are only those of writing in `dir`.
pub fn exercise_evidence_bytes(data: &[u8], dir: &std::path::Path) -> std::io::Result<()> {
    use crate::evidence::{self, ascend, chrome_trace, oom_log, pickle, snapshot};
    use std::path::Path;
    let file = dir.join("evidence.bin");
    std::fs::write(&file, data)?;
    if let Ok(ev) = evidence::load(&file) {
        let _ = report_in_every_format(ev);
    }
    let _ = pickle::decode(data);
    let _ = snapshot::read_bytes(data, Path::new("fuzz.pickle"));
    let _ = chrome_trace::read_from(data, Path::new("fuzz.json"), false);
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = oom_log::read_str(text, Path::new("fuzz.log"));
    }
    if let Some((&first, rest)) = data.split_first() {
        let ascend_dir = dir.join("ascend");
        let out = ascend_dir.join("ASCEND_PROFILER_OUTPUT");
        let _ = std::fs::remove_dir_all(&ascend_dir);
        std::fs::create_dir_all(&out)?;
        std::fs::write(
            out.join(ASCEND_FILES[first as usize % ASCEND_FILES.len()]),
            rest,
        )?;
        if let Ok(ev) = ascend::read_dir(&ascend_dir) {
            let _ = report_in_every_format(ev);
        }
    }
    Ok(())
}
