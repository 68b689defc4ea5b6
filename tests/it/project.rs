//! The whole project, whatever files are named: helpers in files that are not named still give
//! findings (pre-commit passes only staged files, stdin names one file), the project root is the
//! closest config, else the VCS root, else the top package, namespace packages resolve, and the
//! summaries are cached on disk (`.oomlint_cache/`) by content.

use std::path::Path;
use std::process::Output;

use crate::common::*;

const HELPER: &str = "import torch


def make_padding_mask(attention_mask, tgt_len):
    bsz, src_len = attention_mask.shape
    return attention_mask[:, None, None, :].expand(bsz, 1, tgt_len, src_len)
";

/// The same helper without the enlargement (a look-alike: nothing to report in the caller).
const HELPER_SMALL: &str = "import torch


def make_padding_mask(attention_mask, tgt_len):
    return attention_mask[:, None, None, :]
";

const CALLER: &str = "import torch
from pkg.masks import make_padding_mask


def forward(hidden_states, attention_mask, seq_len):
    mask = make_padding_mask(attention_mask, seq_len).to(hidden_states.dtype)
    return hidden_states * mask
";

fn write(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("create parent folder");
    }
    std::fs::write(path, text).expect("write file");
}

fn check(dir: &Path, args: &[&str], cache: bool) -> Output {
    check_json_in(dir, args, cache)
}

fn found(out: &Output) -> Vec<(String, usize, String)> {
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}{}",
        stdout(out),
        stderr(out)
    );
    json_findings(out).into_iter().collect()
}

fn caller_finding() -> Vec<(String, usize, String)> {
    vec![("pkg/model.py".to_string(), 6, "OOM101".to_string())]
}

/// A project with a config file at its root and a namespace package `pkg` (no `__init__.py`).
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "oomlint.toml", "");
    write(dir.path(), "pkg/masks.py", HELPER);
    write(dir.path(), "pkg/model.py", CALLER);
    dir
}

#[test]
fn a_named_file_sees_helpers_in_the_rest_of_the_project() {
    let out = bin()
        .current_dir(repo())
        .args([
            "check",
            "testdata/examples/tinyformer/modeling.py",
            "--output-format",
            "json",
        ])
        .output()
        .expect("run");
    let found = found(&out);
    assert!(
        found.contains(&(
            "testdata/examples/tinyformer/modeling.py".to_string(),
            37,
            "OOM101".to_string()
        )),
        "{found:?}"
    );
    // Only the named file is reported.
    assert!(
        found.iter().all(|f| f.0.ends_with("modeling.py")),
        "{found:?}"
    );
}

#[test]
fn namespace_packages_resolve_with_a_folder_or_a_named_file() {
    let dir = project();
    assert_eq!(found(&check(dir.path(), &["pkg"], false)), caller_finding());
    assert_eq!(
        found(&check(dir.path(), &["pkg/model.py"], false)),
        caller_finding()
    );
    // Run from inside the package folder: the root is still the config's folder.
    let out = check(&dir.path().join("pkg"), &["model.py"], false);
    assert_eq!(
        found(&out),
        vec![("model.py".to_string(), 6, "OOM101".to_string())]
    );
    // The look-alike: the helper returns a small view, the caller's cast is cheap.
    write(dir.path(), "pkg/masks.py", HELPER_SMALL);
    assert!(found(&check(dir.path(), &["pkg/model.py"], false)).is_empty());
}

#[test]
fn the_project_root_is_the_vcs_root_or_the_top_package_without_a_config() {
    // A VCS root (a `.git` folder) and a namespace package under it.
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join(".git")).expect("mkdir");
    write(dir.path(), "pkg/masks.py", HELPER);
    write(dir.path(), "pkg/model.py", CALLER);
    assert_eq!(
        found(&check(dir.path(), &["pkg/model.py"], false)),
        caller_finding()
    );
    // No config, no VCS: the top package (an `__init__.py` chain) is the project.
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "app/pkg/__init__.py", "");
    write(dir.path(), "app/pkg/masks.py", HELPER);
    write(dir.path(), "app/pkg/model.py", CALLER);
    // A file outside the package is no part of its project: its helper is not read.
    write(
        dir.path(),
        "app/other.py",
        &HELPER.replace("make_padding_mask", "unrelated_helper"),
    );
    let out = check(&dir.path().join("app"), &["pkg/model.py"], false);
    assert_eq!(found(&out), caller_finding());
    assert!(!dir.path().join("app/pkg/.oomlint_cache").exists());
    // No project at all and the helper not named: nothing to follow, nothing reported.
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "pkg/masks.py", HELPER);
    write(dir.path(), "pkg/model.py", CALLER);
    assert!(found(&check(dir.path(), &["pkg/model.py"], false)).is_empty());
    // Named together (or as the folder), the namespace package resolves from the working folder.
    assert_eq!(found(&check(dir.path(), &["pkg"], false)), caller_finding());
}

#[test]
fn config_excludes_keep_files_out_of_the_project() {
    let dir = project();
    write(dir.path(), "oomlint.toml", "exclude = [\"pkg/masks.py\"]\n");
    assert!(found(&check(dir.path(), &["pkg/model.py"], false)).is_empty());
}

#[test]
fn stdin_is_linted_with_its_project() {
    let dir = project();
    let out = run_in(
        dir.path(),
        &[
            "check",
            "--stdin-filename",
            "pkg/model.py",
            "--output-format",
            "json",
        ],
        Some(CALLER),
    );
    assert_eq!(found(&out), caller_finding());
}

fn cache_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let version = dir.join(env!("CARGO_PKG_VERSION"));
    let Ok(entries) = std::fs::read_dir(version) else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "bin"))
        .collect()
}

#[test]
fn the_cache_is_written_reused_invalidated_by_content_and_survives_corruption() {
    let dir = project();
    let cache = dir.path().join(".oomlint_cache");
    assert_eq!(
        found(&check(dir.path(), &["pkg/model.py"], true)),
        caller_finding()
    );
    assert_eq!(
        std::fs::read_to_string(cache.join(".gitignore")).expect("gitignore"),
        "# Automatically created by oomlint.\n*\n"
    );
    let files = cache_files(&cache);
    assert_eq!(files.len(), 1, "{files:?}");
    // Warm: the same answer.
    assert_eq!(
        found(&check(dir.path(), &["pkg/model.py"], true)),
        caller_finding()
    );
    // The helper changes: its summary is rebuilt from the new content.
    write(dir.path(), "pkg/masks.py", HELPER_SMALL);
    assert!(found(&check(dir.path(), &["pkg/model.py"], true)).is_empty());
    write(dir.path(), "pkg/masks.py", HELPER);
    assert_eq!(
        found(&check(dir.path(), &["pkg/model.py"], true)),
        caller_finding()
    );
    // A corrupt, a truncated and a foreign cache file are rebuilt, never a crash.
    let good = std::fs::read(&files[0]).expect("read cache");
    for bad in [
        b"garbage".to_vec(),
        good[..good.len() / 2].to_vec(),
        good.iter().map(|b| b ^ 0x5a).collect(),
    ] {
        std::fs::write(&files[0], &bad).expect("corrupt");
        let out = check(dir.path(), &["pkg/model.py"], true);
        assert_eq!(found(&out), caller_finding(), "{}", stderr(&out));
        assert_eq!(std::fs::read(&files[0]).expect("reread"), good);
    }
    // No temporary files are left beside it.
    let left: Vec<_> = std::fs::read_dir(files[0].parent().unwrap())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn no_cache_writes_nothing_and_cache_dir_moves_it() {
    let dir = project();
    assert_eq!(
        found(&check(dir.path(), &["pkg/model.py", "--no-cache"], true)),
        caller_finding()
    );
    assert!(!dir.path().join(".oomlint_cache").exists());
    write(
        dir.path(),
        "oomlint.toml",
        "cache-dir = \"build/lint-cache\"\n",
    );
    assert_eq!(
        found(&check(dir.path(), &["pkg/model.py"], true)),
        caller_finding()
    );
    assert!(!dir.path().join(".oomlint_cache").exists());
    assert_eq!(cache_files(&dir.path().join("build/lint-cache")).len(), 1);
    // The cache folder holds no Python file and is never linted.
    let out = check(dir.path(), &["."], true);
    assert_eq!(found(&out), caller_finding());
}

#[test]
fn stubs_are_read_for_summaries_and_never_reported() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "oomlint.toml", "");
    // A stub with a body: its helper is summarized, its own cast is not a finding.
    let stub =
        format!("{HELPER}\n\ndef cast_here(m, b, n):\n    return m.expand(b, 8, n, n).bool()\n");
    write(dir.path(), "pkg/masks.pyi", &stub);
    write(dir.path(), "pkg/model.py", CALLER);
    assert_eq!(found(&check(dir.path(), &["."], false)), caller_finding());
    assert!(found(&check(dir.path(), &["pkg/masks.pyi"], false)).is_empty());
    // The same text as a `.py` file is reported.
    write(dir.path(), "pkg/other.py", &stub);
    let all = found(&check(dir.path(), &["pkg/other.py"], false));
    assert_eq!(
        all,
        vec![("pkg/other.py".to_string(), 10, "OOM101".to_string())]
    );
}

#[test]
fn explicit_files_in_excluded_folders_are_linted_unless_force_exclude() {
    let dir = project();
    write(
        dir.path(),
        "oomlint.toml",
        "extend-exclude = [\"generated\"]\n",
    );
    write(dir.path(), "generated/model.py", CALLER);
    let named = found(&check(dir.path(), &["generated/model.py"], false));
    assert_eq!(
        named,
        vec![("generated/model.py".to_string(), 6, "OOM101".to_string())]
    );
    assert!(
        found(&check(
            dir.path(),
            &["generated/model.py", "--force-exclude"],
            false
        ))
        .is_empty()
    );
    // Walking the project leaves the excluded folder out.
    assert_eq!(found(&check(dir.path(), &["."], false)), caller_finding());
}
