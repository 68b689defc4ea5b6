//! Every fixture under testdata/ gives exactly the diagnostics its `# expect:` comments name:
//! positives, negatives and look-alike traps, run through the built binary.

use std::collections::BTreeSet;

use oomlint::rules::{RULES, RuleKind};

use crate::common::*;

fn check_tree(rel: &str) {
    check_tree_with(rel, &[]);
}

/// `extra`: more flags (an opt-in rule's folder runs with that rule selected).
fn check_tree_with(rel: &str, extra: &[&str]) {
    let root = repo();
    let dir = root.join(rel);
    // `--max-warnings 0`: a tree that reports anything, at either level, exits 1.
    let mut args = vec![
        "check",
        rel,
        "--isolated",
        "--output-format",
        "json",
        "--max-warnings",
        "0",
    ];
    args.extend_from_slice(extra);
    let out = run_in(&root, &args, None);
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "exit {:?}: {}",
        out.status,
        stderr(&out)
    );
    let actual = json_findings(&out);
    let mut expected = BTreeSet::new();
    for file in python_files(&dir) {
        let display = file
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        expected.extend(expectations(&file, &display));
    }
    let missing: Vec<_> = expected.difference(&actual).collect();
    let extra: Vec<_> = actual.difference(&expected).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "fixtures under {rel} disagree with oomlint\nmissing (expected, not reported):\n{}\nextra (reported, not expected):\n{}",
        missing
            .iter()
            .map(|(f, r, c)| format!("  {f}:{r} {c}"))
            .collect::<Vec<_>>()
            .join("\n"),
        extra
            .iter()
            .map(|(f, r, c)| format!("  {f}:{r} {c}"))
            .collect::<Vec<_>>()
            .join("\n"),
    );
    // A tree with expectations must report something, or the test proves nothing.
    assert_eq!(
        out.status.code(),
        Some(if expected.is_empty() { 0 } else { 1 })
    );
}

/// Every static rule in the registry has its folder, and each is checked: a new rule's fixtures
/// are run without editing this file.
#[test]
fn every_static_rule_folder() {
    for rule in RULES.iter().filter(|r| r.kind == RuleKind::Static) {
        let folder = format!("testdata/rules/{}", rule.code);
        if rule.default {
            check_tree(&folder);
        } else {
            check_tree_with(&folder, &["--extend-select", rule.code]);
        }
    }
}

#[test]
fn not_a_finding() {
    check_tree("testdata/rules/not_a_finding");
}

/// The review's false-alarm repros (no-op conversions, copies the code needs, `.pin_memory()`,
/// full-size operands) and our own negatives of each class stay silent at any size.
#[test]
fn false_alarm_classes_are_silent_at_any_size() {
    check_tree_with(
        "testdata/rules/not_a_finding/false_alarms",
        &["--min-static-bytes", "0"],
    );
}

#[test]
fn dataflow() {
    check_tree("testdata/rules/dataflow");
}

#[test]
fn suppression() {
    check_tree("testdata/rules/suppression");
}

#[test]
fn examples() {
    check_tree("testdata/examples");
}
