//! Values across calls into other files, on the project `testdata/projects/calls_across_files`:
//! an expanded tensor passed to a submodule's `forward` (`self.block = Block(dim)`, `Block` in
//! another file) and to a method inherited from a base class of another file is reported at the
//! callee's sink, with the call in its chain, whatever files are named; naming only the caller's
//! file reports nothing (the lines are elsewhere). The cache gives the same findings warm, and
//! follows a changed callee.

use std::collections::BTreeSet;

use crate::common::*;

const PROJECT: &str = "testdata/projects/calls_across_files";

#[test]
fn a_callee_in_another_file_is_reported_at_its_sink_whatever_files_are_named() {
    let want = project_expectations(PROJECT, PROJECT);
    assert_eq!(want.len(), 2, "{want:?}");
    assert_eq!(
        json_findings(&check_json_ok(&repo(), &[PROJECT], false)),
        want
    );
    for callee in ["block.py", "base.py"] {
        let path = format!("{PROJECT}/pkg/{callee}");
        let only: BTreeSet<_> = want
            .iter()
            .filter(|(f, _, _)| f.ends_with(callee))
            .cloned()
            .collect();
        assert_eq!(only.len(), 1);
        assert_eq!(
            json_findings(&check_json_ok(&repo(), &[&path], false)),
            only
        );
    }
    let caller = format!("{PROJECT}/pkg/model.py");
    assert!(json_findings(&check_json_ok(&repo(), &[&caller], false)).is_empty());
}

#[test]
fn the_chain_names_the_call_and_no_fix_edits_the_callee() {
    let out = bin()
        .current_dir(repo())
        .env("OOMLINT_NO_CACHE", "1")
        .args([
            "check",
            PROJECT,
            "--output-format",
            "full",
            "--unsafe-fixes",
        ])
        .output()
        .expect("run oomlint");
    let text = stdout(&out);
    assert!(text.contains("passed as `x` to `self.block`"), "{text}");
    assert!(
        text.contains("passed as `x` to `self.to_compute`"),
        "{text}"
    );
    // Which class the names lead to is not certain.
    assert!(text.contains("may materialize"), "{text}");
    assert!(!text.contains("fixable"), "{text}");
    let diff = bin()
        .current_dir(repo())
        .env("OOMLINT_NO_CACHE", "1")
        .args(["check", PROJECT, "--diff", "--unsafe-fixes"])
        .output()
        .expect("run oomlint");
    assert!(!stdout(&diff).contains("+++"), "{}", stdout(&diff));
}

#[test]
fn the_passed_values_are_cached_and_follow_a_changed_callee() {
    let (_keep, dir) = project_copy(PROJECT);
    let want = project_expectations(PROJECT, "");
    let named = ["pkg/block.py", "pkg/base.py"];
    // Cold, then warm (the project's table, with the passed values, from the cache).
    let cold = json_findings(&check_json_ok(&dir, &named, true));
    assert_eq!(cold, want);
    assert!(dir.join(".oomlint_cache").is_dir());
    assert_eq!(json_findings(&check_json_ok(&dir, &named, true)), want);
    // The callee now reduces first: nothing full-size is converted there.
    let block = dir.join("pkg/block.py");
    let text = std::fs::read_to_string(&block).expect("read");
    let changed = text.replace(
        "return x.half() * scale  # expect: OOM101",
        "return x.sum(1).half() * scale",
    );
    assert_ne!(changed, text);
    std::fs::write(&block, &changed).expect("write");
    let without: BTreeSet<_> = want
        .iter()
        .filter(|(f, _, _)| !f.ends_with("block.py"))
        .cloned()
        .collect();
    assert_eq!(without.len(), 1);
    assert_eq!(json_findings(&check_json_ok(&dir, &named, true)), without);
    assert_eq!(json_findings(&check_json_ok(&dir, &named, true)), without);
    // The caller changes: nothing enlarged is passed to `to_compute` any more.
    let model = dir.join("pkg/model.py");
    let caller = std::fs::read_to_string(&model).expect("read");
    let unpassed = caller.replace(
        "b = self.to_compute(src)",
        "b = self.to_compute(hidden_states)",
    );
    assert_ne!(unpassed, caller);
    std::fs::write(&model, &unpassed).expect("write");
    assert!(json_findings(&check_json_ok(&dir, &named, true)).is_empty());
    // Back as they were: reported again.
    std::fs::write(&block, &text).expect("write");
    std::fs::write(&model, &caller).expect("write");
    assert_eq!(json_findings(&check_json_ok(&dir, &named, true)), want);
}
