//! Copies written in place by functions of other files, on the project
//! `testdata/projects/written_across_files`: a copy of a broadcast view handed to a function of
//! another file that writes that parameter in place (itself, or by passing it on), or stored on
//! `self` where a method hands it to one, is needed: not OOM103 (OOM131 when selected), whatever
//! files are named. The writes are kept in the cache and follow a changed writer.

use std::collections::BTreeSet;

use crate::common::*;

const PROJECT: &str = "testdata/projects/written_across_files";

fn oom131(rows: &[usize]) -> BTreeSet<(String, usize, String)> {
    rows.iter()
        .map(|&r| ("pkg/solver.py".to_string(), r, "OOM131".to_string()))
        .collect()
}

#[test]
fn a_copy_a_callee_of_another_file_writes_is_not_oom103_whatever_files_are_named() {
    let want = project_expectations(PROJECT, PROJECT);
    assert_eq!(want.len(), 1, "{want:?}");
    let caller = format!("{PROJECT}/pkg/solver.py");
    for named in [PROJECT, caller.as_str()] {
        assert_eq!(
            json_findings(&check_json_ok(&repo(), &[named], false)),
            want
        );
    }
    // Selected, OOM131 reports the needed copies.
    let (_keep, dir) = project_copy(PROJECT);
    let mut with_131 = project_expectations(PROJECT, "");
    with_131.extend(oom131(&[8, 14, 26]));
    let selected = check_json_ok(&dir, &["pkg/solver.py", "--extend-select", "OOM131"], false);
    assert_eq!(json_findings(&selected), with_131);
}

#[test]
fn the_writes_are_cached_and_follow_a_changed_writer() {
    let (_keep, dir) = project_copy(PROJECT);
    let want = project_expectations(PROJECT, "");
    let named = ["pkg/solver.py"];
    // Cold, then warm (the project's table, with the writes, from the cache).
    assert_eq!(json_findings(&check_json_ok(&dir, &named, true)), want);
    assert!(dir.join(".oomlint_cache").is_dir());
    assert_eq!(json_findings(&check_json_ok(&dir, &named, true)), want);
    // `reorder_` now only reads its parameter: the copies handed to it are not needed.
    let swap = dir.join("pkg/swap.py");
    let text = std::fs::read_to_string(&swap).expect("read");
    let changed = text.replace(
        "return swap_along_dim_(values.view(-1, values.shape[-1]), i, j, dim=1)",
        "return total_of(values)",
    );
    assert_ne!(changed, text);
    std::fs::write(&swap, &changed).expect("write");
    let mut more = want.clone();
    for row in [14, 26] {
        more.insert(("pkg/solver.py".to_string(), row, "OOM103".to_string()));
    }
    assert_eq!(json_findings(&check_json_ok(&dir, &named, true)), more);
    assert_eq!(json_findings(&check_json_ok(&dir, &named, true)), more);
    // Back as it was.
    std::fs::write(&swap, &text).expect("write");
    assert_eq!(json_findings(&check_json_ok(&dir, &named, true)), want);
}
