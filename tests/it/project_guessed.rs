//! Calls whose callee the caller cannot name, on the project `testdata/projects/guessed_methods`:
//! a method called on an object of unknown class (`pos_emb.apply_rotary(q, freqs)`) is followed
//! into the only class of the project that defines it, as a "may" whose chain states the guess;
//! two classes with the method, a name `nn.Module` has, or arguments that do not fit are not
//! followed. `functools.partial` bindings are called as the function they bind, in the same file
//! and across files; a partial of another package's function is not followed.

use std::collections::BTreeSet;

use crate::common::*;

const PROJECT: &str = "testdata/projects/guessed_methods";

fn full_output(args: &[&str]) -> String {
    let out = bin()
        .current_dir(repo())
        .env("OOMLINT_NO_CACHE", "1")
        .args(args)
        .output()
        .expect("run oomlint");
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(&out));
    stdout(&out)
}

#[test]
fn guessed_methods_and_partials_are_reported_at_their_sinks_and_look_alikes_are_not() {
    let want = project_expectations(PROJECT, PROJECT);
    assert_eq!(want.len(), 5, "{want:?}");
    let out = check_json_in(&repo(), &[PROJECT], false);
    assert_eq!(json_findings(&out), want, "{}", stderr(&out));
    // Naming only the callee's file: the caller's guess is read from the project.
    let rotary = format!("{PROJECT}/pkg/rotary.py");
    let only: BTreeSet<_> = want
        .iter()
        .filter(|(f, _, _)| f.ends_with("rotary.py"))
        .cloned()
        .collect();
    assert_eq!(
        json_findings(&check_json_in(&repo(), &[&rotary], false)),
        only
    );
}

#[test]
fn a_guess_is_a_warning_that_says_its_basis_and_a_known_receiver_stays_certain() {
    let text = full_output(&["check", PROJECT, "--output-format", "full"]);
    assert!(
        text.contains(
            "passed as `freqs` to `pos_emb.apply_rotary`, if `pos_emb` is a `Rotary` (the only class of the project with a method `apply_rotary`)"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "if `self.pos_emb` is a `Rotary` (the only class of the project with a method `scaled`)"
        ),
        "{text}"
    );
    assert!(!text.contains("error["), "{text}");
    // `self.gate_of(big)`: the class is known, the finding certain.
    let local = full_output(&[
        "check",
        &format!("{PROJECT}/pkg/local.py"),
        "--output-format",
        "concise",
    ]);
    assert!(
        local.contains("`big.float()` after `expand` materializes"),
        "{local}"
    );
    assert!(!local.contains("may materialize"), "{local}");
}

#[test]
fn sites_says_why_an_ambiguous_method_is_not_followed() {
    let text = full_output(&["sites", &format!("{PROJECT}/pkg/attention.py")]);
    assert!(
        text.contains("at a call the analysis does not follow (`pos_emb.mix`): 2 classes of the project define `mix`"),
        "{text}"
    );
}

#[test]
fn a_partial_is_the_call_it_binds() {
    let text = full_output(&["check", PROJECT, "--output-format", "full"]);
    // Same file: `partial(scale_mask, scale=0.5)` called as `apply(big, q)`.
    assert!(text.contains("passed as `mask` to `scale_mask`"), "{text}");
    // Across files: `functools.partial(decay, rate=0.1)` on `self.rot`.
    assert!(text.contains("passed as `freqs` to `decay`"), "{text}");
}

#[test]
fn the_method_index_is_cached() {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = repo().join(PROJECT);
    for file in python_files(&src) {
        let rel = file.strip_prefix(&src).expect("inside the project");
        let to = dir.path().join(rel);
        std::fs::create_dir_all(to.parent().expect("parent")).expect("mkdir");
        std::fs::copy(&file, &to).expect("copy");
    }
    std::fs::copy(src.join("oomlint.toml"), dir.path().join("oomlint.toml")).expect("copy");
    let named = ["pkg/rotary.py"];
    let cold = json_findings(&check_json_in(dir.path(), &named, true));
    assert_eq!(cold.len(), 3, "{cold:?}");
    assert!(dir.path().join(".oomlint_cache").is_dir());
    // Warm: the project's table (with the guesses and the methods) from the cache.
    assert_eq!(
        json_findings(&check_json_in(dir.path(), &named, true)),
        cold
    );
    // Another class now defines `scaled` too: that guess no longer leads anywhere.
    let other = dir.path().join("pkg/other.py");
    std::fs::write(
        &other,
        "class Scaler:\n    def scaled(self, t, freqs):\n        return t\n",
    )
    .expect("write");
    let fewer = json_findings(&check_json_in(dir.path(), &named, true));
    assert_eq!(fewer.len(), 2, "{fewer:?}");
    std::fs::remove_file(&other).expect("remove");
    assert_eq!(
        json_findings(&check_json_in(dir.path(), &named, true)),
        cold
    );
}
