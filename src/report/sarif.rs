//! `sarif`: SARIF 2.1.0 with one run, every rule's metadata (from `lints/`) and one result per
//! diagnostic: its location, the chain as related locations, and the fix as replacements.
//!
//! Columns count characters, so the run states `columnKind: unicodeCodePoints` (SARIF's default
//! is UTF-16 code units).

use std::io::{self, Write};

use serde_json::{Value, json};

use super::{diagnostics, file_span, gitlab::fingerprints, label_file_span, portable_path};
use crate::diagnostic::{Applicability, Diagnostic};
use crate::model::LintResult;
use crate::rules::{RULES, RuleInfo, RuleKind};
use crate::source::Position;

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

pub fn write(out: &mut dyn Write, result: &LintResult) -> io::Result<()> {
    let rules: Vec<Value> = RULES.iter().map(|r| rule(r)).collect();
    let results: Vec<Value> = diagnostics(result)
        .zip(fingerprints(result))
        .map(|((_, d), fingerprint)| result_object(d, &fingerprint))
        .collect();
    let log = json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "oomlint",
                    "version": env!("CARGO_PKG_VERSION"),
                    "semanticVersion": env!("CARGO_PKG_VERSION"),
                    "informationUri": crate::rules::PROJECT_URL,
                    "rules": rules,
                }
            },
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    });
    serde_json::to_writer_pretty(&mut *out, &log).map_err(io::Error::other)?;
    writeln!(out)
}

/// A rule's default level: a static rule's findings are warnings unless their size is stated;
/// the others have one level (`rules::level::rule_level`).
fn default_level(r: &RuleInfo) -> &'static str {
    match r.kind {
        RuleKind::Static => "warning",
        _ => crate::rules::level::rule_level(r, false).as_str(),
    }
}

fn rule(r: &RuleInfo) -> Value {
    let summary = r.summary();
    let full = r.section("What it does").unwrap_or_else(|| summary.clone());
    json!({
        "id": r.code,
        "name": r.name,
        "shortDescription": { "text": summary },
        "fullDescription": { "text": full },
        "help": { "text": r.doc, "markdown": r.doc },
        "helpUri": r.url(),
        // The level of a finding depends on what is known of its size (`rules::level`); each
        // result says its own. A rule's default is the lower one.
        "defaultConfiguration": { "level": default_level(r) },
    })
}

fn result_object(d: &Diagnostic, fingerprint: &str) -> Value {
    // A notebook's region is in the `.ipynb` text (what a code-scanning viewer shows); the cell
    // and the place in it are in the message and the properties.
    let (start, end) = file_span(d);
    let message = match d.cell {
        Some(_) => format!("{}: {}", d.place(), d.message),
        None => d.message.clone(),
    };
    let mut object = json!({
        "ruleId": d.rule.code,
        "level": d.level.as_str(),
        "message": { "text": message },
        "locations": [{
            "physicalLocation": physical_location(&d.file, start, end),
        }],
        "partialFingerprints": { "oomlint/v1": fingerprint },
    });
    let map = object.as_object_mut().expect("object");
    if let Some(index) = RULES.iter().position(|r| r.code == d.rule.code) {
        map.insert("ruleIndex".into(), json!(index));
    }
    if !d.labels.is_empty() {
        let related: Vec<Value> = d
            .labels
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let (start, end) = label_file_span(l);
                json!({
                    "id": i,
                    "physicalLocation": physical_location(&l.file, start, end),
                    "message": { "text": l.text },
                })
            })
            .collect();
        map.insert("relatedLocations".into(), json!(related));
    }
    // A fix's replacements would be in the `.ipynb` text, not in the cell: none for a notebook.
    if let Some(fix) = d.fix.as_ref().filter(|_| d.cell.is_none()) {
        let replacements: Vec<Value> = fix
            .edits
            .iter()
            .map(|e| {
                json!({
                    "deletedRegion": region(e.location, e.end_location),
                    "insertedContent": { "text": e.content },
                })
            })
            .collect();
        let applicability = match fix.applicability {
            Applicability::Safe => "safe",
            Applicability::Unsafe => "unsafe",
            Applicability::DisplayOnly => "display-only",
        };
        map.insert(
            "fixes".into(),
            json!([{
                "description": { "text": fix.message },
                "artifactChanges": [{
                    "artifactLocation": { "uri": uri(&d.file) },
                    "replacements": replacements,
                }],
                "properties": { "applicability": applicability },
            }]),
        );
    }
    let mut properties = serde_json::Map::new();
    if let Some(cell) = d.cell {
        properties.insert("cell".into(), json!(cell.cell));
        properties.insert("cellLine".into(), json!(d.location.row));
        properties.insert("cellColumn".into(), json!(d.location.column));
    }
    if let Some(help) = &d.help {
        properties.insert("help".into(), json!(help));
    }
    if !d.notes.is_empty() {
        properties.insert("notes".into(), json!(d.notes));
    }
    if let Some(evidence) = &d.evidence {
        properties.insert("evidence".into(), json!(evidence));
    }
    // The size as JSON writes it: bytes, each dim's value and basis, the capacity check.
    if let Some(size) = &d.size {
        properties.insert("size".into(), json!(size));
    }
    if !properties.is_empty() {
        map.insert("properties".into(), Value::Object(properties));
    }
    object
}

fn physical_location(file: &str, start: Position, end: Position) -> Value {
    json!({
        "artifactLocation": { "uri": uri(file) },
        "region": region(start, end),
    })
}

fn region(start: Position, end: Position) -> Value {
    let (start_line, start_column) = (start.row.max(1), start.column.max(1));
    let (end_line, end_column) = if (end.row, end.column) < (start_line, start_column) {
        (start_line, start_column)
    } else {
        (end.row, end.column)
    };
    json!({
        "startLine": start_line,
        "startColumn": start_column,
        "endLine": end_line,
        "endColumn": end_column,
    })
}

/// A URI reference for a display path: relative paths stay relative (forward slashes), absolute
/// ones become `file://` URIs; characters outside the URI grammar are percent-encoded.
fn uri(path: &str) -> String {
    let path = portable_path(path);
    let bytes = path.as_bytes();
    if path.starts_with('/') {
        format!("file://{}", encode(&path))
    } else if bytes.len() >= 3 && bytes[0].is_ascii_alphabetic() && &bytes[1..3] == b":/" {
        format!("file:///{}:{}", &path[..1], encode(&path[2..]))
    } else {
        encode(&path)
    }
}

fn encode(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for &b in path.as_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=@".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::uri;

    #[test]
    fn uris_are_relative_or_file_uris() {
        assert_eq!(uri("src\\model.py"), "src/model.py");
        assert_eq!(uri("my dir/a:b.py"), "my%20dir/a%3Ab.py");
        assert_eq!(uri("/home/u/x.py"), "file:///home/u/x.py");
        assert_eq!(uri("C:\\x\\y.py"), "file:///C:/x/y.py");
        assert_eq!(uri("ü.py"), "%C3%BC.py");
    }
}
