//! The registry is the one list of rules: everything else that names rules (documents, fixture
//! folders, the README table) is checked against it here, so forgetting one fails a test.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::{RULES, RuleKind, markdown_table};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Names of the entries of a folder (files or folders), sorted.
fn entries(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn codes_are_unique_sorted_and_well_formed() {
    let codes: Vec<&str> = RULES.iter().map(|r| r.code).collect();
    let mut sorted = codes.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(
        codes, sorted,
        "RULES must be in code order, without repeats"
    );
    for rule in RULES {
        assert!(
            rule.code.len() == 6
                && rule.code.starts_with("OOM")
                && rule.code[3..].chars().all(|c| c.is_ascii_digit()),
            "{}",
            rule.code
        );
        assert!(
            rule.name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c == '-'),
            "{}: names are kebab-case",
            rule.name
        );
    }
}

#[test]
fn every_rule_has_its_document_and_every_document_a_rule() {
    let docs: BTreeSet<String> = entries(&repo().join("lints"))
        .into_iter()
        .filter_map(|f| f.strip_suffix(".md").map(str::to_string))
        .collect();
    let codes: BTreeSet<String> = RULES.iter().map(|r| r.code.to_string()).collect();
    assert_eq!(docs, codes, "lints/*.md and RULES disagree");
    for rule in RULES {
        assert!(
            rule.doc
                .starts_with(&format!("# {}: {}\n", rule.code, rule.name)),
            "lints/{}.md must start with `# {}: {}`",
            rule.code,
            rule.code,
            rule.name
        );
    }
}

#[test]
fn every_static_rule_has_a_fixture_folder_and_every_folder_a_rule() {
    let folders: BTreeSet<String> = entries(&repo().join("testdata/rules"))
        .into_iter()
        .filter(|f| f.starts_with("OOM"))
        .collect();
    let static_codes: BTreeSet<String> = RULES
        .iter()
        .filter(|r| r.kind == RuleKind::Static)
        .map(|r| r.code.to_string())
        .collect();
    assert_eq!(
        folders, static_codes,
        "testdata/rules/OOM*/ and the static rules in RULES disagree"
    );
    for code in &static_codes {
        let files = entries(&repo().join("testdata/rules").join(code));
        assert!(
            files.iter().any(|f| f.ends_with(".py")),
            "testdata/rules/{code}/ holds no fixture"
        );
    }
}

#[test]
fn static_rules_check_sites_and_others_do_not() {
    for rule in RULES {
        let checks_sites = matches!(rule.check, super::Check::Site(_));
        assert_eq!(
            checks_sites,
            rule.kind == RuleKind::Static,
            "{}: kind and check disagree",
            rule.code
        );
        if rule.fix.is_some() {
            assert_eq!(
                rule.kind,
                RuleKind::Static,
                "{}: only static rules fix",
                rule.code
            );
        }
    }
}

#[test]
fn readme_rule_table_is_the_generated_one() {
    let readme = std::fs::read_to_string(repo().join("README.md")).expect("README.md");
    let table = markdown_table();
    assert!(
        readme.contains(&table),
        "README.md's rule table is out of date; replace it with the output of `oomlint rule --markdown`:\n{table}"
    );
}

#[test]
fn every_project_address_in_the_docs_is_the_one_in_cargo_toml() {
    let url = super::PROJECT_URL;
    assert!(
        url.starts_with("https://"),
        "repository in Cargo.toml: {url}"
    );
    let root = repo();
    let mut files = vec![
        root.join("README.md"),
        root.join("pyproject.toml"),
        root.join("editors/vscode/package.json"),
    ];
    for dir in ["docs", "lints"] {
        for name in entries(&root.join(dir)) {
            if name.ends_with(".md") {
                files.push(root.join(dir).join(name));
            }
        }
    }
    for file in files {
        let text =
            std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for (at, _) in text.match_indices("github.com/") {
            let rest = &text[at..];
            let end = rest
                .find(|c: char| c.is_whitespace() || "\"'`)>".contains(c))
                .unwrap_or(rest.len());
            let address = &rest[..end];
            // Other projects' addresses may appear; ours must be spelled one way.
            if address.contains("oomlint") {
                assert!(
                    format!("https://{address}").starts_with(url),
                    "{}: `{address}` is not {url}",
                    file.display()
                );
            }
        }
    }
}
