//! OOM121 across a function boundary, on the project `testdata/projects/repeat_helpers`: a helper
//! returns a `repeat` of a size-1 dim and every caller in the project only broadcasts it. The
//! finding is at the helper's repeat, whatever files are named (the whole folder, the helper's
//! file alone, stdin); naming only a caller's file reports nothing (the line is elsewhere). The
//! traps (a caller writes in place, views, hands the result on or returns it; the helper is used
//! as a value, re-exported by the package's `__init__`, decorated, never called) are in the same
//! files, without `# expect:` comments.

use std::collections::BTreeSet;

use crate::common::*;

const PROJECT: &str = "testdata/projects/repeat_helpers";

fn helper_file() -> String {
    format!("{PROJECT}/pkg/geometry.py")
}

#[test]
fn the_returned_repeat_is_reported_at_the_helper_whatever_files_are_named() {
    let want = project_expectations(PROJECT, PROJECT);
    assert_eq!(want.len(), 3, "{want:?}");
    assert!(
        want.iter()
            .all(|(f, _, c)| f.ends_with("geometry.py") && c == "OOM121")
    );
    let whole = json_findings(&check_json_ok(&repo(), &[PROJECT], false));
    assert_eq!(whole, want);
    // Only the helper's file named: its callers are read from the rest of the project.
    let helper = json_findings(&check_json_ok(&repo(), &[&helper_file()], false));
    assert_eq!(helper, want);
    // Only a caller's file named: the finding's line is in a file that is not reported.
    for caller in ["heads.py", "train.py"] {
        let path = format!("{PROJECT}/pkg/{caller}");
        assert!(
            json_findings(&check_json_ok(&repo(), &[&path], false)).is_empty(),
            "{caller}"
        );
    }
}

#[test]
fn stdin_of_the_helper_sees_the_callers_on_disk() {
    let dir = repo().join(PROJECT);
    let text = std::fs::read_to_string(dir.join("pkg/geometry.py")).expect("read helper");
    let out = run_in(
        &dir,
        &[
            "check",
            "--stdin-filename",
            "pkg/geometry.py",
            "--output-format",
            "json",
        ],
        Some(&text),
    );
    assert_eq!(json_findings(&out), project_expectations(PROJECT, ""));
}

#[test]
fn the_message_names_the_function_its_calls_and_a_public_name() {
    let out = bin()
        .current_dir(repo())
        .args(["check", &helper_file(), "--output-format", "full"])
        .output()
        .expect("run oomlint");
    let text = stdout(&out);
    assert!(
        text.contains("tensor that `_spread` returns and every caller only broadcasts; use `expand(-1, -1, D)`"),
        "{text}"
    );
    assert!(
        text.contains("`_spread` is called 2 times in 2 files of the project"),
        "{text}"
    );
    assert!(
        text.contains("`spread_scores` is public: code outside this project that calls it may need a writable copy"),
        "{text}"
    );
    assert!(!text.contains("`_spread` is public"), "{text}");
    // A suggestion, never applied by `--fix` (the result becomes a view).
    assert!(text.contains("fix (suggestion only)"), "{text}");
}

#[test]
fn the_callers_reads_are_cached_and_follow_a_changed_caller() {
    let (_keep, dir) = project_copy(PROJECT);
    let want = project_expectations(PROJECT, "");
    let named = ["pkg/geometry.py"];
    // Cold, then warm (the project's table, with the callers' reads, from the cache).
    assert_eq!(json_findings(&check_json_ok(&dir, &named, true)), want);
    assert!(dir.join(".oomlint_cache").is_dir());
    assert_eq!(json_findings(&check_json_ok(&dir, &named, true)), want);
    // One caller now writes the result in place: that helper needs its copy.
    let heads = dir.join("pkg/heads.py");
    let text = std::fs::read_to_string(&heads).expect("read");
    let changed = text.replace(
        "    return h * _spread(x, B, Q, D)\n",
        "    s = _spread(x, B, Q, D)\n    s.mul_(2)\n    return h * s\n",
    );
    assert_ne!(changed, text);
    std::fs::write(&heads, &changed).expect("write");
    let without: BTreeSet<_> = want
        .iter()
        .filter(|(_, row, _)| *row != 8)
        .cloned()
        .collect();
    assert_eq!(without.len(), 2);
    assert_eq!(json_findings(&check_json_ok(&dir, &named, true)), without);
    assert_eq!(json_findings(&check_json_ok(&dir, &named, true)), without);
    // Back as it was: reported again.
    std::fs::write(&heads, &text).expect("write");
    assert_eq!(json_findings(&check_json_ok(&dir, &named, true)), want);
}

#[test]
fn a_new_mention_of_the_helper_anywhere_in_the_project_withdraws_it() {
    let (_keep, dir) = project_copy(PROJECT);
    let want = project_expectations(PROJECT, "");
    let named = ["pkg/geometry.py"];
    assert_eq!(json_findings(&check_json_ok(&dir, &named, false)), want);
    // `_spread` passed as a value in a file that does not call it.
    std::fs::write(
        dir.join("pkg/registry.py"),
        "from pkg.geometry import _spread\n\nSPREADERS = [_spread]\n",
    )
    .expect("write");
    let found = json_findings(&check_json_ok(&dir, &named, false));
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found.iter().all(|(_, row, _)| *row != 8), "{found:?}");
    // Exported by the package's `__init__` (code outside the project may call it).
    std::fs::remove_file(dir.join("pkg/registry.py")).expect("remove");
    std::fs::write(dir.join("pkg/__init__.py"), "from .geometry import *\n").expect("write");
    assert!(json_findings(&check_json_ok(&dir, &named, false)).is_empty());
}

/// A broadcast-only helper called only through its module (`utils.select_rows(pos, ids)`), in a
/// file walked before the helper's: the second pass finds the call all the same (issue 20, the
/// lightly I-JEPA predictor). Run on a copy, from inside it, where the caller's file comes first.
#[test]
fn a_broadcast_only_helper_called_through_its_module_is_followed() {
    let project = "testdata/rules/OOM121/module_call_pkg";
    let (_keep, dir) = project_copy(project);
    let got = json_findings(&check_json_ok(&dir, &["."], false));
    assert_eq!(got, project_expectations(project, ""));
    assert_eq!(got.len(), 1, "{got:?}");
}
