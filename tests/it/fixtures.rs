//! Every fixture under testdata/ gives exactly the diagnostics its `# expect:` comments name:
//! positives, negatives and look-alike traps, run through the built binary.

use std::collections::BTreeSet;

use crate::common::*;

fn check_tree(rel: &str) {
    let root = repo();
    let dir = root.join(rel);
    let out = run_in(
        &root,
        &["check", rel, "--isolated", "--output-format", "json"],
        None,
    );
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

macro_rules! fixture_tests {
    ($($name:ident => $path:literal,)*) => {$(
        #[test]
        fn $name() {
            check_tree($path);
        }
    )*};
}

fixture_tests! {
    oom101 => "testdata/rules/OOM101",
    oom102 => "testdata/rules/OOM102",
    oom103 => "testdata/rules/OOM103",
    oom104 => "testdata/rules/OOM104",
    oom111 => "testdata/rules/OOM111",
    oom112 => "testdata/rules/OOM112",
    oom113 => "testdata/rules/OOM113",
    oom121 => "testdata/rules/OOM121",
    not_a_finding => "testdata/rules/not_a_finding",
    dataflow => "testdata/rules/dataflow",
    suppression => "testdata/rules/suppression",
    examples => "testdata/examples",
}
