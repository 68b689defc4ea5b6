//! Jupyter notebooks end to end: discovery, cell positions in every format, suppressions in
//! cells, fixes that rewrite only cell sources, and the written JSON's structure.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{repo, run_in, stderr, stdout};

fn notebooks() -> PathBuf {
    repo().join("testdata/notebooks")
}

/// The fixtures copied into a fresh folder (fixes write there).
fn copy_fixtures() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for entry in std::fs::read_dir(notebooks()).expect("fixtures") {
        let path = entry.expect("entry").path();
        std::fs::copy(&path, dir.path().join(path.file_name().expect("name"))).expect("copy");
    }
    dir
}

fn check(dir: &Path, args: &[&str]) -> (String, String, Option<i32>) {
    let mut all = vec!["check", "--isolated"];
    all.extend_from_slice(args);
    let out = run_in(dir, &all, None);
    (stdout(&out), stderr(&out), out.status.code())
}

fn concise(dir: &Path, paths: &[&str]) -> Vec<String> {
    let mut args = vec!["--output-format", "concise"];
    args.extend_from_slice(paths);
    let (out, err, code) = check(dir, &args);
    assert!(matches!(code, Some(0 | 1)), "{out}\n{err}");
    out.lines()
        .filter(|l| l.contains(" OOM"))
        // The level after the place is not what these tests compare.
        .map(|l| {
            l.replacen(": warning OOM", ": OOM", 1)
                .replacen(": error OOM", ": OOM", 1)
        })
        .map(|l| l.split(" `").next().unwrap_or_default().to_string())
        .collect()
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("invalid JSON: {e}\n{text}"))
}

#[test]
fn casts_across_cells_are_reported_at_cell_positions() {
    let found = concise(&notebooks(), &["cross_cell.ipynb"]);
    assert_eq!(
        found,
        [
            // The mask expanded in cell 3, cast in cell 4 (magics before both).
            "cross_cell.ipynb:cell 4:2:15: OOM101",
            // The helper of cell 2, cast in a function of cell 5.
            "cross_cell.ipynb:cell 5:3:14: OOM101",
            // The expand(...).float() chain after a `?` help line.
            "cross_cell.ipynb:cell 6:2:76: OOM101 `.float()` of",
        ]
        .map(|s| s.split(" `").next().unwrap_or(s).to_string())
    );
    // Full shows the cell as a file of its own, and the chain's step in its own cell.
    let (out, _, code) = check(&notebooks(), &["cross_cell.ipynb"]);
    assert_eq!(code, Some(1));
    assert!(out.contains("┌─ cross_cell.ipynb:cell 4:2:15"), "{out}");
    assert!(out.contains("┌─ cross_cell.ipynb:cell 3:3:50"), "{out}");
    assert!(out.contains("2 │ scores = mask.float()"), "{out}");
    assert!(
        !out.contains("%matplotlib") && !out.contains("\"source\""),
        "{out}"
    );
}

#[test]
fn magics_neither_break_parsing_nor_hide_code() {
    assert_eq!(
        concise(&notebooks(), &["magics.ipynb"]),
        Vec::<String>::new()
    );
    // The same cells with the magics left as Python would not parse.
    let (out, _, _) = check(&notebooks(), &["--output-format", "json", "magics.ipynb"]);
    assert_eq!(json(&out), serde_json::json!([]));
}

#[test]
fn a_broken_cell_is_one_syntax_error_and_the_other_cells_are_linted() {
    assert_eq!(
        concise(&notebooks(), &["broken_cell.ipynb"]),
        [
            "broken_cell.ipynb:cell 2:1:10: OOM001 syntax error: Expected a parameter or the end of the parameter list",
            "broken_cell.ipynb:cell 3:1:10: OOM101",
        ]
    );
}

#[test]
fn noqa_and_file_level_suppressions_work_in_cells() {
    // outputs.ipynb: cell 3 has `# noqa: OOM101`; without it, it is reported.
    let found = concise(&notebooks(), &["outputs.ipynb"]);
    assert!(found.iter().all(|f| !f.contains("cell 3:")), "{found:?}");
    assert!(found.iter().any(|f| f.contains("cell 2:1:16")), "{found:?}");
    let dir = copy_fixtures();
    let path = dir.path().join("outputs.ipynb");
    let text = std::fs::read_to_string(&path).expect("read");
    std::fs::write(&path, text.replace("  # noqa: OOM101", "")).expect("write");
    let found = concise(dir.path(), &["outputs.ipynb"]);
    assert!(found.iter().any(|f| f.contains("cell 3:1:14")), "{found:?}");

    // file_suppressed.ipynb: `# oomlint: noqa: OOM101` in its first cell.
    assert_eq!(
        concise(&notebooks(), &["file_suppressed.ipynb"]),
        Vec::<String>::new()
    );
    let path = dir.path().join("file_suppressed.ipynb");
    let text = std::fs::read_to_string(&path).expect("read");
    std::fs::write(&path, text.replace("# oomlint: noqa: OOM101\\n", "")).expect("write");
    assert_eq!(
        concise(dir.path(), &["file_suppressed.ipynb"]).len(),
        1,
        "reported once the comment is gone"
    );
}

#[test]
fn folders_include_notebooks_unless_configured_otherwise() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::copy(
        notebooks().join("outputs.ipynb"),
        dir.path().join("outputs.ipynb"),
    )
    .expect("copy");
    std::fs::write(dir.path().join("notes.txt"), "x.expand(4, 4).float()\n").expect("write");
    let walk = |config: Option<&str>, paths: &[&str]| -> Vec<String> {
        if let Some(c) = config {
            std::fs::write(dir.path().join("oomlint.toml"), c).expect("config");
        }
        let mut args = vec!["check", "--output-format", "concise"];
        args.extend_from_slice(paths);
        let out = run_in(dir.path(), &args, None);
        stdout(&out)
            .lines()
            .filter(|l| l.contains(" OOM"))
            .map(|l| l.split(':').next().unwrap_or(l).to_string())
            .collect()
    };
    assert_eq!(walk(None, &["."]), ["outputs.ipynb", "outputs.ipynb"]);
    assert_eq!(
        walk(Some("extend-exclude = [\"*.ipynb\"]\n"), &["."]).len(),
        0
    );
    // Named on the command line, a notebook is always read (the exclude above still applies).
    assert_eq!(walk(None, &["outputs.ipynb"]).len(), 2);
    assert_eq!(walk(Some("include = [\"*.py\"]\n"), &["."]).len(), 0);
    // `extend-include` adds patterns to `include`.
    assert_eq!(
        walk(
            Some("include = [\"*.py\"]\nextend-include = [\"*.ipynb\"]\n"),
            &["."]
        )
        .len(),
        2
    );
}

#[test]
fn json_has_a_cell_field_and_cell_positions() {
    let (out, _, _) = check(
        &notebooks(),
        &["--output-format", "json", "cross_cell.ipynb"],
    );
    let items = json(&out);
    let first = &items[0];
    assert_eq!(first["cell"], 4);
    assert_eq!(
        first["location"],
        serde_json::json!({"row": 2, "column": 15})
    );
    assert_eq!(first["noqa_row"], 2);
    let chain = first["chain"].as_array().expect("chain");
    assert_eq!(chain[0]["cell"], 3);
    assert_eq!(chain.last().expect("sink")["cell"], 4);
    // The fix of the chain is in its cell, with positions in it.
    let last = &items[2];
    assert_eq!(last["cell"], 6);
    let edit = &last["fix"]["edits"][0];
    assert_eq!(edit["cell"], 6);
    assert_eq!(edit["location"]["row"], 2);
    // A cast whose expand is in another cell gets no fix (it would span cells).
    assert_eq!(first["fix"], Value::Null);
    // json-lines carries the same objects.
    let (lines, _, _) = check(
        &notebooks(),
        &["--output-format", "json-lines", "cross_cell.ipynb"],
    );
    let parsed: Vec<Value> = lines.lines().map(json).collect();
    assert_eq!(parsed, items.as_array().expect("array").clone());
    // A .py file's objects have no `cell` key (as before).
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("a.py"),
        "def f(m, b):\n    return m[:, None].expand(b, 8, 4096).half()\n",
    )
    .expect("write");
    let (out, _, _) = check(dir.path(), &["--output-format", "json", "a.py"]);
    assert!(json(&out)[0].get("cell").is_none(), "{out}");
}

/// The 1-based line of the `.ipynb` text holding `needle`.
fn file_line(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle} not in the file"))
        + 1
}

#[test]
fn ci_formats_point_at_the_lines_of_the_ipynb_file() {
    let raw = std::fs::read_to_string(notebooks().join("cross_cell.ipynb")).expect("read");
    let cast_line = file_line(&raw, "scores = mask.float()");
    let (out, _, _) = check(
        &notebooks(),
        &["--output-format", "github", "cross_cell.ipynb"],
    );
    let first = out.lines().next().expect("one annotation");
    // Column 15 of the cell is column 20 of the file line `    "scores = mask.float()\n",`.
    assert!(
        first.starts_with(&format!(
            "::error file=cross_cell.ipynb,line={cast_line},col=20,endLine={cast_line},endColumn=27,"
        )),
        "{first}"
    );
    assert!(first.contains("::cell 4:2:15: `mask.float()`"), "{first}");
    // The chain's column counts the file's escapes (`\"` twice before it).
    let chain_line = file_line(&raw, "bias = batch");
    let line = raw.lines().nth(chain_line - 1).expect("line");
    let col = line.find("float()").expect("float") + 1;
    assert!(
        out.contains(&format!("line={chain_line},col={col},")),
        "{out}"
    );

    let (out, _, _) = check(
        &notebooks(),
        &["--output-format", "gitlab", "cross_cell.ipynb"],
    );
    let issues = json(&out);
    assert_eq!(issues[0]["location"]["lines"]["begin"], cast_line);
    assert!(
        issues[0]["description"]
            .as_str()
            .expect("text")
            .ends_with("at cell 4:2:15")
    );
    let fingerprints: Vec<&str> = issues
        .as_array()
        .expect("issues")
        .iter()
        .map(|i| i["fingerprint"].as_str().expect("fingerprint"))
        .collect();
    assert_eq!(fingerprints.len(), 3);
    assert!(fingerprints[0] != fingerprints[1] && fingerprints[1] != fingerprints[2]);

    let (out, _, _) = check(
        &notebooks(),
        &["--output-format", "junit", "cross_cell.ipynb"],
    );
    assert!(
        out.contains(&format!(
            "at cross_cell.ipynb:cell 4:2:15\" classname=\"cross_cell.ipynb\" file=\"cross_cell.ipynb\" line=\"{cast_line}\""
        )),
        "{out}"
    );

    let (out, _, _) = check(
        &notebooks(),
        &["--output-format", "sarif", "cross_cell.ipynb"],
    );
    crate::formats::assert_valid_sarif(&crate::formats::sarif_validator(), &out);
    let log = json(&out);
    let result = &log["runs"][0]["results"][0];
    assert_eq!(
        result["locations"][0]["physicalLocation"]["region"]["startLine"],
        cast_line
    );
    assert_eq!(result["properties"]["cell"], 4);
    assert_eq!(result["properties"]["cellLine"], 2);
    // No replacement in JSON coordinates: a notebook's fixes are not in SARIF.
    let results = log["runs"][0]["results"].as_array().expect("results");
    assert!(results.iter().all(|r| r.get("fixes").is_none()));
}

#[test]
fn a_notebook_that_is_not_json_is_unreadable_with_a_position() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("bad.ipynb"), "{\n \"cells\": [\n  {,\n").expect("write");
    std::fs::write(
        dir.path().join("r.ipynb"),
        "{\"cells\": [], \"metadata\": {\"kernelspec\": {\"language\": \"R\"}}, \"nbformat\": 4, \"nbformat_minor\": 5}\n",
    )
    .expect("write");
    let found = concise(dir.path(), &["."]);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found[0].starts_with("bad.ipynb:3:4: OOM002 cannot read notebook"),
        "{found:?}"
    );
    assert!(
        found[1].starts_with("r.ipynb:1:1: OOM002 cannot read notebook: a r notebook"),
        "{found:?}"
    );
}

#[test]
fn stdin_with_a_notebook_name_is_read_as_a_notebook() {
    let text = std::fs::read_to_string(notebooks().join("outputs.ipynb")).expect("read");
    let out = run_in(
        &notebooks(),
        &[
            "check",
            "--isolated",
            "--output-format",
            "concise",
            "--stdin-filename",
            "x.ipynb",
            "-",
        ],
        Some(&text),
    );
    assert!(
        stdout(&out).contains("x.ipynb:cell 2:1:16: error OOM101"),
        "{}",
        stdout(&out)
    );
}

/// Every key and value of two notebooks equal, except the `source` of code cells.
fn same_but_code_sources(a: &Value, b: &Value) {
    assert_eq!(a["nbformat"], 4);
    assert_eq!(b["nbformat"], 4);
    let strip = |v: &Value| {
        let mut v = v.clone();
        for cell in v["cells"].as_array_mut().expect("cells") {
            if cell["cell_type"] == "code" {
                cell["source"] = Value::Null;
            }
        }
        v
    };
    assert_eq!(strip(a), strip(b));
}

/// The code cells' sources, joined.
fn sources(v: &Value) -> Vec<String> {
    v["cells"]
        .as_array()
        .expect("cells")
        .iter()
        .filter(|c| c["cell_type"] == "code")
        .map(|c| match &c["source"] {
            Value::String(s) => s.clone(),
            Value::Array(lines) => lines.iter().filter_map(Value::as_str).collect(),
            _ => panic!("source"),
        })
        .collect()
}

/// The lines that differ between two texts (`similar` line diff).
fn changed_lines(old: &str, new: &str) -> (Vec<String>, Vec<String>) {
    let diff = similar::TextDiff::from_lines(old, new);
    let mut removed = Vec::new();
    let mut added = Vec::new();
    for change in diff.iter_all_changes() {
        match change.tag() {
            similar::ChangeTag::Delete => removed.push(change.value().to_string()),
            similar::ChangeTag::Insert => added.push(change.value().to_string()),
            similar::ChangeTag::Equal => {}
        }
    }
    (removed, added)
}

#[test]
fn fixes_rewrite_only_the_changed_source_lines() {
    let dir = copy_fixtures();
    let before: Vec<(String, String)> = [
        "cross_cell",
        "outputs",
        "indent4_no_newline",
        "magics",
        "broken_cell",
    ]
    .iter()
    .map(|n| {
        let name = format!("{n}.ipynb");
        let text = std::fs::read_to_string(dir.path().join(&name)).expect("read");
        (name, text)
    })
    .collect();
    let (out, err, code) = check(
        dir.path(),
        &["--fix", "--unsafe-fixes", "--output-format", "concise", "."],
    );
    assert_eq!(code, Some(1), "{out}\n{err}");
    for (name, old) in &before {
        let new = std::fs::read_to_string(dir.path().join(name)).expect("read");
        let (removed, added) = changed_lines(old, &new);
        match name.as_str() {
            // The bar: the last cell casts first, one line of the file changes.
            "cross_cell.ipynb" => {
                assert_eq!(
                    (removed.as_slice(), added.as_slice()),
                    (
                        ["    \"bias = batch[\\\"attention_mask\\\"][:, None, None, :].expand(8, 32, 4096, 4096).float()\"\n".to_string()].as_slice(),
                        ["    \"bias = batch[\\\"attention_mask\\\"][:, None, None, :].float().expand(8, 32, 4096, 4096)\"\n".to_string()].as_slice(),
                    ),
                    "{new}"
                );
            }
            "outputs.ipynb" => {
                assert_eq!(removed.len(), 1, "{new}");
                assert_eq!(
                    added,
                    [
                        "    \"w2 = torch.rand(4, 1, 1, 2048).half().expand(4, 16, 2048, 2048)\\n\",\n"
                    ]
                );
                assert!(
                    new.contains("\"image/png\": \"iVBORw0KGgo"),
                    "the image stays"
                );
            }
            "indent4_no_newline.ipynb" => {
                assert_eq!((removed.len(), added.len()), (1, 1), "{new}");
                assert!(
                    added[0].starts_with("            \"source\": \"import torch\\n"),
                    "{added:?}"
                );
                assert!(
                    added[0].contains("half().expand(8, 4096, 4096)\\n\\\"\\\"\\\"é\\ttab"),
                    "{added:?}"
                );
                assert!(!new.ends_with('\n'), "no final newline, as before");
            }
            // Nothing to fix (or a syntax error): byte for byte as before.
            _ => assert_eq!(&new, old, "{name}"),
        }
        let (a, b) = (json(old), json(&new));
        same_but_code_sources(&a, &b);
        let (sa, sb) = (sources(&a), sources(&b));
        assert_eq!(sa.len(), sb.len());
        let changed = sa.iter().zip(&sb).filter(|(x, y)| x != y).count();
        assert!(changed <= 1, "{name}: one cell changes");
        assert_eq!(key_order(old), key_order(&new), "{name}: key order");
    }
    // Fixed notebooks lint clean of what was fixed, and a second run changes nothing.
    let again: Vec<String> = before
        .iter()
        .map(|(n, _)| std::fs::read_to_string(dir.path().join(n)).expect("read"))
        .collect();
    check(dir.path(), &["--fix", "--unsafe-fixes", "."]);
    for ((name, _), text) in before.iter().zip(&again) {
        assert_eq!(
            &std::fs::read_to_string(dir.path().join(name)).expect("read"),
            text
        );
    }
}

/// The keys of the text in the order they are written (every `"key":`).
fn key_order(text: &str) -> Vec<String> {
    regex::Regex::new(r#""([A-Za-z_/]+)"\s*:"#)
        .expect("regex")
        .captures_iter(text)
        .map(|c| c[1].to_string())
        .collect()
}

#[test]
fn diff_shows_the_cell_and_writes_nothing() {
    let dir = copy_fixtures();
    let before = std::fs::read(dir.path().join("cross_cell.ipynb")).expect("read");
    let (out, err, code) = check(
        dir.path(),
        &["--diff", "--unsafe-fixes", "cross_cell.ipynb"],
    );
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(
        out,
        "--- a/cross_cell.ipynb:cell 6\n+++ b/cross_cell.ipynb:cell 6\n@@ -1,2 +1,2 @@\n torch.Tensor.expand?\n\
         -bias = batch[\"attention_mask\"][:, None, None, :].expand(8, 32, 4096, 4096).float()\n\\ No newline at end of file\n\
         +bias = batch[\"attention_mask\"][:, None, None, :].float().expand(8, 32, 4096, 4096)\n\\ No newline at end of file\n"
    );
    assert!(err.contains("Would fix 1 error."), "{err}");
    assert_eq!(
        std::fs::read(dir.path().join("cross_cell.ipynb")).expect("read"),
        before
    );
}

#[test]
fn a_fix_never_spans_cells() {
    // indent4: `m` is expanded in cell 1 and cast in cell 2; the cast is reported without a fix,
    // while the chain inside cell 1 is fixed.
    let (out, _, _) = check(
        &notebooks(),
        &[
            "--output-format",
            "json",
            "--unsafe-fixes",
            "indent4_no_newline.ipynb",
        ],
    );
    let items = json(&out);
    let across = items
        .as_array()
        .expect("items")
        .iter()
        .find(|d| d["cell"] == 2)
        .expect("the cast in cell 2");
    assert_eq!(across["fix"], Value::Null);
    assert_eq!(across["chain"][0]["cell"], 1);
}

#[cfg(unix)]
#[test]
fn a_read_only_notebook_is_not_written() {
    use std::os::unix::fs::PermissionsExt;
    let dir = copy_fixtures();
    let path = dir.path().join("outputs.ipynb");
    let before = std::fs::read(&path).expect("read");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).expect("chmod");
    // Module-level fixes are unsafe (the value is a global other cells may write).
    let (_, err, code) = check(dir.path(), &["--fix", "--unsafe-fixes", "outputs.ipynb"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("outputs.ipynb: file is read-only"), "{err}");
    assert_eq!(std::fs::read(&path).expect("read"), before);
    // No temporary file is left next to it.
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".ipynb"))
        .collect();
    assert_eq!(names, Vec::<String>::new());
}
