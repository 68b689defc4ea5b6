//! `oomlint sites`: every enlargement with its fate, through the built binary.

use crate::common::{bin, repo, run_in, stdout};

fn sites_json(args: &[&str]) -> serde_json::Value {
    let out = run_in(
        &repo(),
        &[&["sites", "--isolated", "--format", "json"], args].concat(),
        None,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout(&out)).expect("sites --format json is JSON")
}

/// Each enlargement of `testdata/sites/fates.py` carries a `# fate:` comment on the line of
/// its conversion (or its use) saying what `sites` must report for it.
#[test]
fn every_fate_is_named() {
    let files = sites_json(&["testdata/sites/fates.py"]);
    let text = std::fs::read_to_string(repo().join("testdata/sites/fates.py")).unwrap();
    let expected: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .filter_map(|(i, l)| l.split_once("# fate: ").map(|(_, f)| (i + 1, f)))
        .collect();
    let enlargements = files[0]["enlargements"].as_array().unwrap();
    assert_eq!(enlargements.len(), expected.len(), "{files:#}");
    for (e, (row, fate)) in enlargements.iter().zip(&expected) {
        let said: Vec<String> = e["conversions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| format!("{} {}", c["location"]["row"], c["reason"].as_str().unwrap()))
            .chain(e["no_conversion"].as_str().map(|s| format!("{row} {s}")))
            .collect();
        // Each fate is said on its own line (a conversion) or of its enlargement.
        let key = fate.split(" as ").next().unwrap().trim_end_matches(':');
        let key = key.replace("lost at a call", "lost at line");
        assert!(
            said.iter().any(|s| {
                let (r, why) = s.split_once(' ').unwrap();
                r == row.to_string()
                    && key
                        .split(' ')
                        .filter(|w| w.len() > 3)
                        .all(|w| why.contains(w))
            }),
            "line {row}: expected `{fate}`, got {said:?}"
        );
    }
    let reported: Vec<&serde_json::Value> = enlargements
        .iter()
        .flat_map(|e| e["conversions"].as_array().unwrap())
        .filter(|c| c["outcome"] == "reported")
        .collect();
    assert_eq!(reported.len(), 1);
    assert_eq!(reported[0]["rule"], "OOM101");
}

/// What `sites` calls reported is exactly what `check` prints, on the example package and on
/// every rule fixture (a finding `check` prints with no enlargement listed, or the other way
/// round, is a bug in one of them).
#[test]
fn reported_fates_match_check() {
    for dir in ["testdata/examples", "testdata/rules"] {
        let files = sites_json(&[dir]);
        let mut from_sites: Vec<(String, u64, String)> = Vec::new();
        for f in files.as_array().unwrap() {
            for e in f["enlargements"].as_array().unwrap() {
                for c in e["conversions"].as_array().unwrap() {
                    if c["outcome"] == "reported" {
                        from_sites.push((
                            f["file"].as_str().unwrap().to_string(),
                            c["location"]["row"].as_u64().unwrap(),
                            c["rule"].as_str().unwrap().to_string(),
                        ));
                    }
                }
            }
        }
        let out = run_in(
            &repo(),
            &[
                "check",
                "--isolated",
                "--output-format",
                "json",
                "--exit-zero",
                dir,
            ],
            None,
        );
        let findings: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        let mut from_check: Vec<(String, u64, String)> = findings
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["code"].as_str().is_some_and(|c| c.starts_with("OOM1")))
            // Findings through a helper in another file: `sites` lists them at the call too.
            .map(|d| {
                (
                    d["filename"].as_str().unwrap().to_string(),
                    d["location"]["row"].as_u64().unwrap(),
                    d["code"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        from_sites.sort();
        from_sites.dedup();
        from_check.sort();
        from_check.dedup();
        assert_eq!(from_sites, from_check, "{dir}");
    }
}

#[test]
fn text_and_tsv_name_every_enlargement() {
    let out = run_in(
        &repo(),
        &["sites", "--isolated", "testdata/sites/fates.py"],
        None,
    );
    let text = stdout(&out);
    assert!(text.contains("fates.py:6:45: expand"), "{text}");
    assert!(
        text.contains("7:22 `.bool()`: reported as OOM101 (warning)"),
        "{text}"
    );
    assert!(
        text.contains("17:17 `.bool()`: no-op: the value is already bool"),
        "{text}"
    );
    assert!(
        text.ends_with("11 enlargements, 1 with a reported finding.\n"),
        "{text}"
    );

    let out = run_in(
        &repo(),
        &[
            "sites",
            "--isolated",
            "--format",
            "tsv",
            "testdata/sites/fates.py",
        ],
        None,
    );
    let tsv = stdout(&out);
    let rows: Vec<Vec<&str>> = tsv.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows[0].len(), 13);
    assert!(rows.iter().all(|r| r.len() == 13), "{tsv}");
    assert_eq!(
        rows.len(),
        12,
        "a header and one row per enlargement here: {tsv}"
    );
    assert!(
        rows.iter()
            .any(|r| r[10] == "none" && r[12].contains("external_kernel"))
    );
}

#[test]
fn bound_dims_change_the_tiny_verdict() {
    // At the default sizes the [2, 3] cast is tiny; the fixture's real masks are not. Binding
    // the mask dims small makes the reported one tiny too.
    let files = sites_json(&[
        "--dim",
        "batch_size=1",
        "--dim",
        "num_heads=1",
        "--dim",
        "seq_len=8",
        "testdata/sites/fates.py",
    ]);
    let first = &files[0]["enlargements"][0]["conversions"][0];
    assert_eq!(first["outcome"], "not-reported");
    assert!(
        first["reason"]
            .as_str()
            .unwrap()
            .starts_with("tiny at its bound size")
    );
}

#[test]
fn unreadable_file_and_bad_config_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.py"), b"x = \xff\n").unwrap();
    let out = run_in(dir.path(), &["sites", "--isolated", "."], None);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout(&out).contains("bad.py: not listed:"),
        "{}",
        stdout(&out)
    );

    std::fs::write(dir.path().join("oomlint.toml"), "select = 3\n").unwrap();
    let out = bin()
        .current_dir(dir.path())
        .args(["sites", "."])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("oomlint.toml"));
}

/// The fates of needed copies and no-op moves say why: a clone written in place is OOM131's, a
/// move to the device expression the value was placed with names that place.
#[test]
fn fates_of_written_copies_and_named_device_moves() {
    let out = run_in(
        &repo(),
        &[
            "sites",
            "--isolated",
            "testdata/rules/OOM112/negative_named_device.py",
            "testdata/rules/OOM103/negative_written_in_place.py",
        ],
        None,
    );
    let text = stdout(&out);
    for fate in [
        "15:38 `.to(self.device)`: a no-op: the value is already on `self.device` (placed there on line 12)",
        "24:38 `.to(table.device)`: a no-op: the value is already on `self.device` (placed there on line 22)",
        "29:34 `.to(device)`: a no-op: the value is already on `device` (placed there on line 28)",
        "9:87 `.clone()`: OOM131 (copy-of-broadcast-for-layout) claims it",
        "19:87 `.clone()`: OOM131 (copy-of-broadcast-for-layout) claims it",
    ] {
        assert!(text.contains(fate), "{fate}\n{text}");
    }
    assert!(text.contains(", 0 with a reported finding.\n"), "{text}");
}
