//! The repros of missed true sites (`testdata/unseen/miss_*.py`): every line marked `# site` is
//! reported at some level, whatever its size (`--min-static-bytes 0`).

use crate::common::*;

#[test]
fn every_marked_site_is_reported() {
    let root = repo();
    let dir = root.join("testdata/unseen");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("testdata/unseen")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("miss_") && n.ends_with(".py"))
        })
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no repro under testdata/unseen");
    let mut missed = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("repro");
        let rel = file.strip_prefix(&root).expect("inside the repo");
        let rel = rel.to_str().expect("utf-8 path");
        let args = [
            "check",
            rel,
            "--isolated",
            "--min-static-bytes",
            "0",
            "--output-format",
            "json",
            "--exit-zero",
        ];
        let out = run_in(&root, &args, None);
        let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json output");
        let rows: Vec<u64> = json
            .as_array()
            .expect("a list of diagnostics")
            .iter()
            .filter_map(|d| d["location"]["row"].as_u64())
            .collect();
        for (i, line) in text.lines().enumerate() {
            if line.contains("# site") && !rows.contains(&(i as u64 + 1)) {
                missed.push(format!("{rel}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    assert!(
        missed.is_empty(),
        "marked sites not reported:\n{}",
        missed.join("\n")
    );
}
