//! The rule documents in `lints/` are part of the product: their examples are run through the
//! binary (the bad example triggers exactly its own code, the good one nothing), they have the
//! required sections, and `oomlint rule` prints them verbatim.

use std::path::PathBuf;

use oomlint::rules::{RULES, RuleKind};

use crate::common::*;

/// The codes `oomlint rule` knows: the registry.
fn registered() -> Vec<&'static str> {
    RULES.iter().map(|r| r.code).collect()
}

/// The static rules, whose documents carry runnable examples.
fn static_rules() -> Vec<&'static str> {
    RULES
        .iter()
        .filter(|r| r.kind == RuleKind::Static)
        .map(|r| r.code)
        .collect()
}

const SECTIONS: &[&str] = &[
    "## What it does",
    "## Why is this bad",
    "## Fix safety",
    "## Memory impact",
    "## Known limits",
];

fn doc_path(code: &str) -> PathBuf {
    repo().join("lints").join(format!("{code}.md"))
}

fn read_doc(code: &str) -> String {
    let path = doc_path(code);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every `lints/*.md`, as (code, text), sorted by code.
fn all_docs() -> Vec<(String, String)> {
    let mut docs: Vec<(String, String)> = std::fs::read_dir(repo().join("lints"))
        .expect("lints/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .map(|p| {
            let code = p.file_stem().expect("stem").to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&p).expect("read doc");
            (code, text)
        })
        .collect();
    docs.sort();
    docs
}

/// Is `heading` one of the document's lines, exactly?
fn has_heading(doc: &str, heading: &str) -> bool {
    doc.lines().any(|l| l.trim_end() == heading)
}

/// The first ```python block after the `heading` line (and before the next `## ` heading).
fn python_block(doc: &str, heading: &str) -> Option<String> {
    let mut lines = doc.lines().skip_while(|l| l.trim_end() != heading).skip(1);
    let mut found_fence = false;
    let mut block = String::new();
    for line in lines.by_ref() {
        if !found_fence {
            if line.starts_with("## ") {
                return None;
            }
            if line.trim_end() == "```python" {
                found_fence = true;
            }
            continue;
        }
        if line.trim_end() == "```" {
            return Some(block);
        }
        block.push_str(line);
        block.push('\n');
    }
    None
}

/// Lints `code` as a file in a temp dir; returns (exit code, codes reported).
/// `rule` is selected on top of the default set (an opt-in rule's examples run with it).
fn lint_snippet(code: &str, file: &str, rule: &str) -> (Option<i32>, Vec<String>) {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join(file), code).expect("write snippet");
    let out = run_in(
        dir.path(),
        &[
            "check",
            "--isolated",
            "--extend-select",
            rule,
            "--output-format",
            "json",
            file,
        ],
        None,
    );
    assert!(
        !stderr(&out).contains("panicked"),
        "{file}: {}",
        stderr(&out)
    );
    let value: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{file}: json: {e}\n{}\n{}", stdout(&out), stderr(&out)));
    let codes = value
        .as_array()
        .expect("array")
        .iter()
        .map(|d| d["code"].as_str().unwrap_or_default().to_string())
        .collect();
    (out.status.code(), codes)
}

#[test]
fn every_static_rule_has_a_document() {
    for code in static_rules() {
        assert!(doc_path(code).is_file(), "lints/{code}.md is missing");
    }
    // And every document is a registered rule's.
    for (code, _) in all_docs() {
        assert!(
            registered().contains(&code.as_str()),
            "lints/{code}.md belongs to no rule in RULES"
        );
    }
}

#[test]
fn bad_examples_trigger_exactly_their_own_code() {
    let mut failures = Vec::new();
    for code in static_rules() {
        let doc = read_doc(code);
        let Some(example) = python_block(&doc, "## Example") else {
            failures.push(format!("{code}: no ```python block under ## Example"));
            continue;
        };
        let (exit, found) = lint_snippet(&example, "example.py", code);
        if found != [code.to_string()] || !matches!(exit, Some(0 | 1)) {
            failures.push(format!(
                "{code}: Example gave {found:?} (exit {exit:?}), expected exactly [{code}]"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn good_examples_are_clean() {
    let mut failures = Vec::new();
    for code in static_rules() {
        let doc = read_doc(code);
        let Some(example) = python_block(&doc, "## Use instead") else {
            failures.push(format!("{code}: no ```python block under ## Use instead"));
            continue;
        };
        let (exit, found) = lint_snippet(&example, "use_instead.py", code);
        if !found.is_empty() || exit != Some(0) {
            failures.push(format!(
                "{code}: Use instead gave {found:?} (exit {exit:?}), expected nothing"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_document_has_the_required_sections() {
    let docs = all_docs();
    assert!(
        docs.len() >= registered().len(),
        "too few docs: {}",
        docs.len()
    );
    let mut failures = Vec::new();
    for (code, text) in &docs {
        let title = text.lines().next().unwrap_or_default();
        if !title.starts_with(&format!("# {code}: ")) {
            failures.push(format!("{code}: title line is `{title}`"));
        }
        let mut last = 0;
        for section in SECTIONS {
            let Some(at) = text.lines().position(|l| l.trim_end() == *section) else {
                failures.push(format!("{code}: missing `{section}`"));
                continue;
            };
            if at < last {
                failures.push(format!("{code}: `{section}` out of order"));
            }
            last = at;
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn static_rule_documents_have_example_sections() {
    for code in static_rules() {
        let doc = read_doc(code);
        for heading in ["## Example", "## Use instead"] {
            assert!(has_heading(&doc, heading), "{code}: missing `{heading}`");
        }
    }
}

#[test]
fn rule_command_prints_the_document_verbatim() {
    let root = repo();
    for code in registered() {
        let out = run_in(&root, &["rule", code], None);
        assert_eq!(out.status.code(), Some(0), "{code}: {}", stderr(&out));
        assert_eq!(stdout(&out), read_doc(code), "oomlint rule {code}");
    }
}

#[test]
fn rule_command_accepts_the_rule_name() {
    let out = run_in(&repo(), &["rule", "cast-after-expand"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), read_doc("OOM101"));
}

#[test]
fn rule_all_contains_every_registered_document() {
    let out = run_in(&repo(), &["rule", "--all"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    for code in registered() {
        assert!(text.contains(code), "`rule --all` lacks {code}");
        assert!(
            text.contains(&read_doc(code)),
            "`rule --all` lacks the full document of {code}"
        );
    }
}

#[test]
fn rule_without_code_lists_every_rule() {
    let out = run_in(&repo(), &["rule"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    for code in registered() {
        assert!(
            text.lines().any(|l| l.starts_with(code)),
            "`rule` list lacks {code}:\n{text}"
        );
    }
}

#[test]
fn unknown_rule_is_a_usage_error() {
    for code in ["OOM999", "not-a-rule"] {
        let out = run_in(&repo(), &["rule", code], None);
        assert_eq!(out.status.code(), Some(2), "{code}");
        assert!(out.stdout.is_empty(), "{code}: {}", stdout(&out));
        let err = stderr(&out);
        assert!(err.contains(code), "{code}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{code}: {err}");
    }
}
