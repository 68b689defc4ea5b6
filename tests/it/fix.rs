//! `--fix`, `--diff`, `--unsafe-fixes`: expected outputs (`.fixed` files, as in clippy's UI
//! tests), round trips on every fixture (fixed code parses, re-lints clean of fixable findings,
//! and a second fix changes nothing), safety levels, and file safety.

use std::path::{Path, PathBuf};

use crate::common::*;

fn fixture_pairs() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(repo().join("testdata/fixes"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    out.sort();
    assert!(out.len() >= 5, "fix fixtures missing");
    out
}

fn fix_copy(src: &Path, extra: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("case.py");
    std::fs::copy(src, &file).unwrap();
    let mut args = vec!["check", "case.py", "--fix", "--isolated"];
    args.extend_from_slice(extra);
    let out = run_in(dir.path(), &args, None);
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{}",
        stderr(&out)
    );
    String::from_utf8(std::fs::read(&file).unwrap()).unwrap()
}

#[test]
fn safe_fixes_give_the_expected_files() {
    for src in fixture_pairs() {
        let expected = std::fs::read_to_string(src.with_extension("py.fixed")).unwrap();
        assert_eq!(fix_copy(&src, &[]), expected, "--fix of {}", src.display());
    }
}

#[test]
fn unsafe_fixes_give_the_expected_files() {
    for src in fixture_pairs() {
        let expected = std::fs::read_to_string(src.with_extension("py.unsafe-fixed")).unwrap();
        assert_eq!(
            fix_copy(&src, &["--unsafe-fixes"]),
            expected,
            "--fix --unsafe-fixes of {}",
            src.display()
        );
    }
}

#[test]
fn the_seed_becomes_cast_then_expand() {
    let fixed = fix_copy(&repo().join("testdata/fixes/seed.py"), &[]);
    let lines: Vec<&str> = fixed.lines().map(str::trim).collect();
    let cast = lines
        .iter()
        .position(|l| *l == "attn_mask = attn_mask.bool()")
        .unwrap();
    assert_eq!(
        lines[cast + 1],
        "attn_mask = attn_mask.expand(batch_size, self.num_attention_heads, total_seq_len, -1)"
    );
}

/// Every fixture tree: after `--fix --unsafe-fixes` everything parses, no fixable finding is
/// left, and fixing again changes nothing.
#[test]
fn round_trip_on_every_fixture_tree() {
    for tree in ["testdata/rules", "testdata/examples", "testdata/fixes"] {
        let dir = tempfile::tempdir().unwrap();
        copy_tree(&repo().join(tree), dir.path());
        let first = run_in(
            dir.path(),
            &["check", ".", "--fix", "--unsafe-fixes", "--isolated"],
            None,
        );
        assert!(
            first.status.code().is_some_and(|c| c <= 1),
            "{tree}: {}",
            stderr(&first)
        );
        let snapshot: Vec<(PathBuf, Vec<u8>)> = python_files(dir.path())
            .into_iter()
            .map(|p| {
                let bytes = std::fs::read(&p).unwrap();
                (p, bytes)
            })
            .collect();
        let after = run_in(
            dir.path(),
            &["check", ".", "--isolated", "--output-format", "json"],
            None,
        );
        let value: serde_json::Value = serde_json::from_slice(&after.stdout).unwrap();
        for d in value.as_array().unwrap() {
            assert_ne!(d["code"], "OOM001", "{tree}: a fix broke the syntax: {d:#}");
            let applicability = d["fix"]["applicability"].as_str().unwrap_or("none");
            assert!(
                applicability != "safe" && applicability != "unsafe",
                "{tree}: a fixable finding remains after --fix: {d:#}"
            );
        }
        let second = run_in(
            dir.path(),
            &["check", ".", "--fix", "--unsafe-fixes", "--isolated"],
            None,
        );
        assert!(second.status.code().is_some_and(|c| c <= 1));
        for (path, bytes) in snapshot {
            assert_eq!(
                std::fs::read(&path).unwrap(),
                bytes,
                "second --fix changed {}",
                path.display()
            );
        }
    }
}

#[test]
fn diff_prints_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        repo().join("testdata/fixes/same_chain.py"),
        dir.path().join("a.py"),
    )
    .unwrap();
    let before = std::fs::read(dir.path().join("a.py")).unwrap();
    let out = run_in(dir.path(), &["check", "a.py", "--diff", "--isolated"], None);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains("--- a/a.py") && text.contains("+++ b/a.py"),
        "{text}"
    );
    assert!(
        text.contains(
            "+    return inverted_mask.expand(bsz, 1, tgt_len, src_len).masked_fill(inverted_mask.to(torch.bool), torch.finfo(dtype).min)"
        ),
        "{text}"
    );
    assert_eq!(std::fs::read(dir.path().join("a.py")).unwrap(), before);
    // Nothing to fix: exit 0.
    std::fs::write(dir.path().join("b.py"), "x = 1\n").unwrap();
    let clean = run_in(dir.path(), &["check", "b.py", "--diff", "--isolated"], None);
    assert_eq!(clean.status.code(), Some(0));
    assert!(stdout(&clean).is_empty());
}

/// `--diff` counts the fixes it leaves out because they are unsafe, as `check` does, and exits 1
/// when only those are left.
#[test]
fn diff_counts_unsafe_fixes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        repo().join("testdata/fixes/unsafe_only.py"),
        dir.path().join("a.py"),
    )
    .unwrap();
    let out = run_in(dir.path(), &["check", "a.py", "--diff", "--isolated"], None);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stdout(&out).is_empty(), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("No fixes available (3 more fixable with `--fix --unsafe-fixes`)."),
        "{}",
        stderr(&out)
    );
    let both = run_in(
        dir.path(),
        &["check", "a.py", "--diff", "--unsafe-fixes", "--isolated"],
        None,
    );
    assert_eq!(both.status.code(), Some(1));
    assert!(
        stderr(&both).contains("Would fix 3 errors."),
        "{}",
        stderr(&both)
    );
    // Safe and unsafe fixes in one file: both counts.
    std::fs::copy(
        repo().join("testdata/fixes/chain.py"),
        dir.path().join("b.py"),
    )
    .unwrap();
    let mixed = run_in(dir.path(), &["check", "b.py", "--diff", "--isolated"], None);
    assert_eq!(mixed.status.code(), Some(1));
    assert!(
        stderr(&mixed)
            .contains("Would fix 18 errors (2 more fixable with `--fix --unsafe-fixes`)."),
        "{}",
        stderr(&mixed)
    );
    // stdin: the diff of the safe fixes (none here) and the count on stderr.
    let text = std::fs::read_to_string(dir.path().join("a.py")).unwrap();
    let piped = run_in(
        dir.path(),
        &["check", "--diff", "--isolated", "--stdin-filename", "a.py"],
        Some(&text),
    );
    assert_eq!(piped.status.code(), Some(1));
    assert!(
        stderr(&piped).contains("3 more fixable with `--fix --unsafe-fixes`"),
        "{}",
        stderr(&piped)
    );
}

/// One `--fix` moves the enlarger past every elementwise conversion that follows it: nothing
/// new is reported afterwards on transformers' `_expand_mask` (before, the next conversion of
/// the still-enlarged view became a new finding that had no fix).
#[test]
fn one_fix_round_leaves_no_finding_on_the_expand_mask_chain() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        repo().join("testdata/fixes/chain.py"),
        dir.path().join("a.py"),
    )
    .unwrap();
    let first = run_in(dir.path(), &["check", "a.py", "--fix", "--isolated"], None);
    assert!(
        first.status.code().is_some_and(|c| c <= 1),
        "{}",
        stderr(&first)
    );
    let after = run_in(
        dir.path(),
        &["check", "a.py", "--isolated", "--output-format", "json"],
        None,
    );
    let value: serde_json::Value = serde_json::from_slice(&after.stdout).unwrap();
    let fixed = std::fs::read_to_string(dir.path().join("a.py")).unwrap();
    let rows: Vec<u64> = value
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            assert_ne!(d["fix"]["applicability"], "safe", "{d:#}");
            d["location"]["row"].as_u64().unwrap()
        })
        .collect();
    // Only the two sites whose value is returned or read after the chain remain, with an
    // unsafe fix: the `~` of a returned value and a cast whose result is returned as well.
    let lines: Vec<&str> = fixed.lines().collect();
    let remaining: Vec<&str> = rows.iter().map(|r| lines[*r as usize - 1].trim()).collect();
    assert_eq!(
        remaining,
        [
            "return ~keep.expand(b, s, s)",
            "keep = mask[:, None, :].expand(b, s, s).bool()"
        ],
        "{fixed}"
    );
    assert!(fixed.contains(
        "    return inverted_mask.expand(bsz, 1, tgt_len, src_len).masked_fill(inverted_mask.to(torch.bool), torch.finfo(dtype).min)"
    ));
}

#[test]
fn fix_only_and_exit_non_zero_on_fix() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        repo().join("testdata/fixes/seed.py"),
        dir.path().join("a.py"),
    )
    .unwrap();
    let out = run_in(
        dir.path(),
        &["check", "a.py", "--fix-only", "--isolated"],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).is_empty(),
        "--fix-only reports nothing: {}",
        stdout(&out)
    );
    assert!(stderr(&out).contains("Fixed 1 error."));
    std::fs::copy(
        repo().join("testdata/fixes/seed.py"),
        dir.path().join("a.py"),
    )
    .unwrap();
    let out = run_in(
        dir.path(),
        &[
            "check",
            "a.py",
            "--fix",
            "--exit-non-zero-on-fix",
            "--isolated",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    // After --fix with nothing left, a plain --fix exits 0.
    let out = run_in(dir.path(), &["check", "a.py", "--fix", "--isolated"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}

fn applicabilities(file: &str) -> Vec<(u64, String)> {
    let out = run_in(
        &repo(),
        &["check", file, "--isolated", "--output-format", "json"],
        None,
    );
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["location"]["row"].as_u64().unwrap(),
                d["fix"]["applicability"]
                    .as_str()
                    .unwrap_or("none")
                    .to_string(),
            )
        })
        .collect()
}

#[test]
fn safety_follows_the_dataflow_facts() {
    // `.to(dtype)` with an annotated torch.dtype, `.bool()`, `.long()`, repeat + `.float()`: safe.
    assert_eq!(
        applicabilities("testdata/fixes/same_chain.py"),
        vec![
            (6, "safe".into()),
            (15, "safe".into()),
            (21, "safe".into()),
            (26, "safe".into())
        ]
    );
    // A device, a returned view, a dtype known only by its name: unsafe.
    assert_eq!(
        applicabilities("testdata/fixes/unsafe_only.py"),
        vec![
            (5, "unsafe".into()),
            (10, "unsafe".into()),
            (14, "unsafe".into())
        ]
    );
    // No fix when the intermediate is used between or elsewhere, or the enlarger is a function.
    assert!(
        applicabilities("testdata/fixes/refused.py")
            .iter()
            .all(|(_, a)| a == "none")
    );
}

#[test]
fn unsafe_fixes_from_config_and_unfixable() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        repo().join("testdata/fixes/unsafe_only.py"),
        dir.path().join("a.py"),
    )
    .unwrap();
    std::fs::write(dir.path().join("oomlint.toml"), "unsafe-fixes = true\n").unwrap();
    run_in(dir.path(), &["check", "a.py", "--fix"], None);
    let fixed = std::fs::read_to_string(dir.path().join("a.py")).unwrap();
    assert_eq!(
        fixed,
        std::fs::read_to_string(repo().join("testdata/fixes/unsafe_only.py.unsafe-fixed")).unwrap()
    );
    std::fs::copy(
        repo().join("testdata/fixes/same_chain.py"),
        dir.path().join("b.py"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("oomlint.toml"),
        "unfixable = [\"OOM101\"]\n",
    )
    .unwrap();
    run_in(dir.path(), &["check", "b.py", "--fix"], None);
    let fixed = std::fs::read_to_string(dir.path().join("b.py")).unwrap();
    assert!(
        fixed.contains(".expand(bsz, 1, tgt_len, src_len).to(dtype)"),
        "OOM101 is unfixable"
    );
    assert!(
        fixed.contains("x.float().repeat(n, 1)"),
        "OOM111 is still fixed"
    );
}

#[test]
fn stdin_fix_prints_the_fixed_code() {
    let src = std::fs::read_to_string(repo().join("testdata/fixes/seed.py")).unwrap();
    let out = run_in(
        &repo(),
        &[
            "check",
            "--stdin-filename",
            "seed.py",
            "--fix",
            "--isolated",
        ],
        Some(&src),
    );
    assert_eq!(
        stdout(&out),
        std::fs::read_to_string(repo().join("testdata/fixes/seed.py.fixed")).unwrap()
    );
}

#[cfg(unix)]
#[test]
fn fix_keeps_permissions_follows_symlinks_and_respects_read_only() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let src = repo().join("testdata/fixes/seed.py");
    let expected = std::fs::read_to_string(repo().join("testdata/fixes/seed.py.fixed")).unwrap();

    let a = dir.path().join("a.py");
    std::fs::copy(&src, &a).unwrap();
    std::fs::set_permissions(&a, std::fs::Permissions::from_mode(0o640)).unwrap();
    run_in(dir.path(), &["check", "a.py", "--fix", "--isolated"], None);
    assert_eq!(std::fs::read_to_string(&a).unwrap(), expected);
    assert_eq!(
        std::fs::metadata(&a).unwrap().permissions().mode() & 0o777,
        0o640
    );

    // A symlink: the target is fixed, the link stays a link.
    let target = dir.path().join("target.py");
    std::fs::copy(&src, &target).unwrap();
    let link = dir.path().join("link.py");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    run_in(
        dir.path(),
        &["check", "link.py", "--fix", "--isolated"],
        None,
    );
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), expected);

    // Read-only: reported, not forced (root ignores the mode bits, so only check the message
    // path when the write would really be refused).
    let ro = dir.path().join("ro.py");
    std::fs::copy(&src, &ro).unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o444)).unwrap();
    let out = run_in(dir.path(), &["check", "ro.py", "--fix", "--isolated"], None);
    assert!(stderr(&out).contains("read-only"), "{}", stderr(&out));
    assert_eq!(std::fs::read(&ro).unwrap(), std::fs::read(&src).unwrap());
    // No temporary files are left behind.
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains("oomlint-"))
        .collect();
    assert!(leftovers.is_empty());
}

#[cfg(unix)]
#[test]
fn two_paths_to_one_file_change_it_once() {
    let dir = tempfile::tempdir().unwrap();
    let src = repo().join("testdata/fixes/seed.py");
    let expected = std::fs::read_to_string(repo().join("testdata/fixes/seed.py.fixed")).unwrap();
    let a = dir.path().join("a.py");
    std::fs::copy(&src, &a).unwrap();
    std::os::unix::fs::symlink("a.py", dir.path().join("link.py")).unwrap();
    std::fs::hard_link(&a, dir.path().join("hard.py")).unwrap();
    let out = run_in(
        dir.path(),
        &[
            "check",
            "--fix",
            "--isolated",
            "--output-format",
            "concise",
            "link.py",
            "a.py",
            "./hard.py",
        ],
        None,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert!(
        !stderr(&out).contains("changed on disk"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_to_string(&a).unwrap(), expected);
    assert!(
        std::fs::symlink_metadata(dir.path().join("link.py"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    // Linting (without --fix) also reads the file once, under the first path in sorted order.
    std::fs::copy(&src, dir.path().join("b.py")).unwrap();
    std::os::unix::fs::symlink("b.py", dir.path().join("c.py")).unwrap();
    let out = run_in(
        dir.path(),
        &[
            "check",
            "--isolated",
            "--output-format",
            "json",
            "c.py",
            "b.py",
        ],
        None,
    );
    let found: Vec<String> = json_findings(&out).into_iter().map(|(f, _, _)| f).collect();
    assert_eq!(found, vec!["b.py".to_string()]);
}

/// A file of `classes` copies of the seed class (one safe fix each).
fn many_fixes(classes: usize) -> String {
    let src = std::fs::read_to_string(repo().join("testdata/fixes/seed.py")).unwrap();
    let mut text = String::new();
    for i in 0..classes {
        text.push_str(&src.replace("class ", &format!("class C{i}_")));
        text.push('\n');
    }
    text
}

#[test]
fn readers_see_the_whole_old_file_or_the_whole_new_one() {
    let dir = tempfile::tempdir().unwrap();
    let original = many_fixes(2_000);
    std::fs::write(dir.path().join("reference.py"), &original).unwrap();
    run_in(
        dir.path(),
        &["check", "--fix", "--isolated", "reference.py"],
        None,
    );
    let fixed = std::fs::read_to_string(dir.path().join("reference.py")).unwrap();
    assert_ne!(fixed, original);

    let path = dir.path().join("m.py");
    std::fs::write(&path, &original).unwrap();
    let mut child = bin()
        .current_dir(dir.path())
        .args(["check", "--fix", "--isolated", "m.py"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut reads = 0;
    loop {
        let done = child.try_wait().unwrap().is_some();
        let now = std::fs::read_to_string(&path).unwrap();
        assert!(
            now == original || now == fixed,
            "a reader saw a partial file ({} bytes)",
            now.len()
        );
        reads += 1;
        if done {
            break;
        }
    }
    assert!(reads > 1);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), fixed);
}

#[test]
fn a_file_edited_between_read_and_write_is_left_alone() {
    if !cfg!(debug_assertions) {
        // The write delay this test relies on exists in debug builds only.
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.py");
    std::fs::copy(repo().join("testdata/fixes/seed.py"), &path).unwrap();
    let child = bin()
        .current_dir(dir.path())
        .env("OOMLINT_TEST_DELAY_BEFORE_WRITE_MS", "3000")
        .args(["check", "--fix", "--isolated", "m.py"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1000));
    let edit = "# saved by an editor while oomlint was fixing\nx = 1\n";
    std::fs::write(&path, edit).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), edit);
    let err = stderr(&out);
    assert!(
        err.contains("m.py") && err.contains("changed on disk since it was read"),
        "{err}"
    );
    assert_eq!(
        err.lines()
            .filter(|l| l.contains("changed on disk"))
            .count(),
        1
    );
}

#[cfg(unix)]
#[test]
fn fix_keeps_owner_and_group_where_it_may() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.py");
    std::fs::copy(repo().join("testdata/fixes/seed.py"), &path).unwrap();
    // Only root may give a file away; elsewhere the file already has our owner.
    let owner = if std::os::unix::fs::chown(&path, Some(4321), Some(4321)).is_ok() {
        (4321, 4321)
    } else {
        let m = std::fs::metadata(&path).unwrap();
        (m.uid(), m.gid())
    };
    run_in(dir.path(), &["check", "--fix", "--isolated", "m.py"], None);
    let m = std::fs::metadata(&path).unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        std::fs::read_to_string(repo().join("testdata/fixes/seed.py.fixed")).unwrap()
    );
    assert_eq!((m.uid(), m.gid()), owner);
}

#[test]
fn every_fix_keeps_bom_and_crlf_or_cr_only_line_endings() {
    let dir = tempfile::tempdir().unwrap();
    let variants: [(&str, &[u8], &str); 2] = [("crlf", b"\xef\xbb\xbf", "\r\n"), ("cr", b"", "\r")];
    let mut expected = Vec::new();
    for src in fixture_pairs() {
        let stem = src.file_stem().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&src).unwrap();
        let fixed = std::fs::read_to_string(src.with_extension("py.unsafe-fixed")).unwrap();
        for (name, bom, ending) in variants {
            let file = format!("{stem}_{name}.py");
            let mut bytes = bom.to_vec();
            bytes.extend(text.replace('\n', ending).into_bytes());
            std::fs::write(dir.path().join(&file), bytes).unwrap();
            let mut want = bom.to_vec();
            want.extend(fixed.replace('\n', ending).into_bytes());
            expected.push((file, want));
        }
    }
    let out = run_in(
        dir.path(),
        &["check", ".", "--fix", "--unsafe-fixes", "--isolated"],
        None,
    );
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{}",
        stderr(&out)
    );
    for (file, want) in expected {
        let got = std::fs::read(dir.path().join(&file)).unwrap();
        assert!(
            got == want,
            "{file}:\n{}\n---- expected ----\n{}",
            String::from_utf8_lossy(&got).escape_debug(),
            String::from_utf8_lossy(&want).escape_debug()
        );
    }
}
