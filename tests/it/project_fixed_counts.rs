//! Counts every call of the project fixes, on the project `testdata/projects/fixed_counts`: a
//! module only ever called with `multiplicity=1` (through the attributes `__init__` stores it
//! on, and passing it on to a submodule) and a helper only called with `dim=1` are not
//! reported, whatever files are named; one also called with another count is. The cache gives
//! the same findings warm, and follows a caller that changes its count.

use std::collections::BTreeSet;

use crate::common::*;

const PROJECT: &str = "testdata/projects/fixed_counts";

#[test]
fn a_count_every_call_passes_as_one_is_not_reported_whatever_files_are_named() {
    let want = project_expectations(PROJECT, PROJECT);
    assert_eq!(want.len(), 2, "{want:?}");
    assert_eq!(
        json_findings(&check_json_ok(&repo(), &[PROJECT], false)),
        want
    );
    let heads = format!("{PROJECT}/pkg/heads.py");
    let only: BTreeSet<_> = want
        .iter()
        .filter(|(f, _, _)| f.ends_with("heads.py"))
        .cloned()
        .collect();
    assert_eq!(only.len(), 1);
    assert_eq!(
        json_findings(&check_json_ok(&repo(), &[&heads], false)),
        only
    );
}

#[test]
fn the_fixed_counts_are_cached_and_follow_a_caller_that_changes() {
    let (_keep, dir) = project_copy(PROJECT);
    let want = project_expectations(PROJECT, "");
    let named = ["pkg/heads.py", "pkg/model.py"];
    assert_eq!(json_findings(&check_json_ok(&dir, &named, true)), want);
    assert!(dir.join(".oomlint_cache").is_dir());
    assert_eq!(json_findings(&check_json_ok(&dir, &named, true)), want);
    // A second count for `Affinity`: its repeats may enlarge again.
    let model = dir.join("pkg/model.py");
    let text = std::fs::read_to_string(&model).expect("read");
    let changed = text.replace(
        "self.affinity_ensemble(z, feats, 1)",
        "self.affinity_ensemble(z, feats, samples)",
    );
    assert_ne!(changed, text);
    std::fs::write(&model, &changed).expect("write");
    let found = json_findings(&check_json_ok(&dir, &named, true));
    assert!(found.is_superset(&want), "{found:?}");
    let affinity_rows: Vec<usize> = found
        .iter()
        .filter(|(f, _, _)| f.ends_with("heads.py"))
        .map(|(_, row, _)| *row)
        .collect();
    assert!(affinity_rows.contains(&22), "{found:?}");
    // Handed to another function, the module may be called with anything.
    let handed = text.replace(
        "out = self.affinity(z, feats, multiplicity=1)",
        "out = run(self.affinity, z, feats)",
    );
    assert_ne!(handed, text);
    std::fs::write(&model, &handed).expect("write");
    let found = json_findings(&check_json_ok(&dir, &named, true));
    assert!(
        found
            .iter()
            .any(|(f, row, _)| f.ends_with("heads.py") && *row == 22),
        "{found:?}"
    );
    // Back as it was.
    std::fs::write(&model, &text).expect("write");
    assert_eq!(json_findings(&check_json_ok(&dir, &named, true)), want);
}

#[test]
fn sites_says_why_a_fixed_count_is_no_enlargement() {
    let heads = format!("{PROJECT}/pkg/heads.py");
    let out = run_in(&repo(), &["sites", &heads], None);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    let fixed = text
        .matches("does not enlarge: every call of the project passes `multiplicity` as 1")
        .count();
    // `Heads` and `Affinity` (three repeats); `Confidence` is reported.
    assert_eq!(fixed, 3, "{text}");
    assert!(text.contains("reported as OOM111"), "{text}");
}
