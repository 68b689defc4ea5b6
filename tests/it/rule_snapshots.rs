//! Per-rule snapshots of what a user reads: the full rendered diagnostics (message, chain labels,
//! help, size note) and the fixes as a diff, for every fixture folder of every static rule in
//! `RULES` and for the shared folders. A wording change shows up here as a failing snapshot.
//! Review and accept a deliberate change with `cargo insta review` (or `INSTA_UPDATE=always`).

use oomlint::rules::{RULES, RuleKind};

use crate::common::*;

/// The folders whose output is snapshotted: every static rule's, then the shared ones.
fn folders() -> Vec<String> {
    let mut out: Vec<String> = RULES
        .iter()
        .filter(|r| r.kind == RuleKind::Static)
        .map(|r| format!("testdata/rules/{}", r.code))
        .collect();
    for shared in ["dataflow", "not_a_finding", "suppression"] {
        out.push(format!("testdata/rules/{shared}"));
    }
    out
}

/// An opt-in rule's own folder runs with that rule selected.
fn opt_in(folder: &str) -> Vec<&'static str> {
    RULES
        .iter()
        .filter(|r| !r.default && folder.ends_with(r.code))
        .flat_map(|r| ["--extend-select", r.code])
        .collect()
}

fn snapshot_name(folder: &str) -> String {
    folder.trim_start_matches("testdata/rules/").to_string()
}

#[test]
fn full_output_of_every_fixture_folder() {
    for folder in folders() {
        let mut args = vec!["check", &folder, "--isolated", "--output-format", "full"];
        args.extend(opt_in(&folder));
        let out = run_in(&repo(), &args, None);
        assert!(
            out.status.code().is_some_and(|c| c <= 1),
            "{folder}: exit {:?}\n{}",
            out.status,
            stderr(&out)
        );
        insta::assert_snapshot!(format!("full_{}", snapshot_name(&folder)), stdout(&out));
    }
}

#[test]
fn fixes_of_every_fixture_folder_as_a_diff() {
    for folder in folders() {
        let mut args = vec!["check", &folder, "--isolated", "--diff", "--unsafe-fixes"];
        args.extend(opt_in(&folder));
        let out = run_in(&repo(), &args, None);
        assert!(
            out.status.code().is_some_and(|c| c <= 1),
            "{folder}: exit {:?}\n{}",
            out.status,
            stderr(&out)
        );
        insta::assert_snapshot!(format!("diff_{}", snapshot_name(&folder)), stdout(&out));
    }
}
