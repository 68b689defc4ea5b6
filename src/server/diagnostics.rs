//! Diagnostics: lint a buffer (with the configuration's profile evidence), publish them or
//! answer a pull, and convert a finding to LSP with what its code actions need.

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use lsp_types::{
    CodeDescription, Diagnostic as LspDiagnostic, DiagnosticRelatedInformation, DiagnosticSeverity,
    DocumentDiagnosticParams, Location, NumberOrString, PublishDiagnosticsParams, Range, Uri,
};
use serde_json::{Value, json};

use super::actions::{DiagnosticData, fix_data, noqa_edit};
use super::position::LineIndex16;
use super::{Document, Server, uri};
use crate::app::{EvidenceOptions, Linted};
use crate::config::Settings;
use crate::diagnostic::Diagnostic;
use crate::discovery;
use crate::model::FileIndex;
use crate::rules;

impl Server {
    /// Pushes fresh diagnostics, or (for a client that pulls them) marks them stale.
    pub(super) fn lint_and_publish(&mut self, key: &str) {
        if let Some(doc) = self.documents.get_mut(key) {
            doc.stale = true;
        }
        if !self.push {
            return;
        }
        self.refresh(key);
        if let Some(doc) = self.documents.get(key) {
            let diagnostics = doc.diagnostics.iter().map(|(d, _)| d.clone()).collect();
            self.publish(&doc.uri, diagnostics, Some(doc.version));
        }
    }

    /// Lints the buffer if its text or the configuration changed since its last lint.
    pub(super) fn refresh(&mut self, key: &str) {
        let Some(doc) = self.documents.get(key).filter(|d| d.stale) else {
            return;
        };
        match doc.notebook.clone() {
            // A notebook's cell is linted with the other cells.
            Some(notebook) => self.lint_notebook(&notebook),
            None => self.lint(key),
        }
    }

    pub(super) fn publish(&self, uri: &Uri, diagnostics: Vec<LspDiagnostic>, version: Option<i32>) {
        self.notify(
            "textDocument/publishDiagnostics",
            PublishDiagnosticsParams {
                uri: uri.clone(),
                diagnostics,
                version,
            },
        );
    }

    /// Lints a buffer's text with the workspace's summaries; a panic in the linter is caught
    /// (the server keeps running and reports it once).
    pub(super) fn lint_guarded(
        &self,
        text: &str,
        path: &std::path::Path,
        display: &std::sync::Arc<str>,
        settings: &crate::config::Settings,
    ) -> std::thread::Result<crate::app::Linted> {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.app.lint_text_with(
                text,
                path,
                display.clone(),
                settings,
                self.summaries.clone(),
                &self.roots,
            )
        }))
    }

    pub(super) fn lint(&mut self, key: &str) {
        let Some((path, display, text)) = self
            .documents
            .get(key)
            .map(|d| (d.path.clone(), d.display.clone(), d.text.clone()))
        else {
            return;
        };
        let settings = self.settings_for(&path);
        let (found, file_index) = if discovery::is_excluded_anywhere(&path, self.app.resolver())
            .unwrap_or(false)
        {
            (Vec::new(), None)
        } else {
            let linted = self.lint_guarded(&text, &path, &display, &settings);
            match linted {
                Ok(mut linted) => {
                    // Taken before the join, which drops reports without findings.
                    let file_index = linted.result.reports.first().and_then(|r| r.index.clone());
                    self.attach_evidence(&mut linted, &settings, &display);
                    let found = linted
                        .result
                        .reports
                        .into_iter()
                        .flat_map(|r| r.diagnostics)
                        .collect();
                    (found, file_index)
                }
                Err(_) => {
                    self.log(&format!("internal error while linting {display}"));
                    (Vec::new(), None)
                }
            }
        };
        let Some(doc) = self.documents.get(key) else {
            return;
        };
        let index = LineIndex16::new(&doc.text);
        let converted = found
            .iter()
            .map(|d| to_lsp(d, doc, &index, file_index.as_deref()))
            .collect();
        if let Some(doc) = self.documents.get_mut(key) {
            doc.diagnostics = converted;
            doc.index = file_index;
            doc.stale = false;
        }
    }

    /// Profile evidence named by the configuration's `profiles` (read once per configuration).
    pub(super) fn attach_evidence(
        &mut self,
        linted: &mut Linted,
        settings: &Settings,
        display: &Arc<str>,
    ) {
        if settings.profiles.is_empty() {
            return;
        }
        let mut loaded = Vec::new();
        for profile in &settings.profiles {
            let entry =
                self.evidence.entry(profile.clone()).or_insert_with(
                    || match crate::evidence::load(profile) {
                        Ok(ev) => Some(Arc::new(ev)),
                        Err(e) => {
                            eprintln!("oomlint server: {e}");
                            None
                        }
                    },
                );
            if let Some(ev) = entry {
                loaded.push((**ev).clone());
            }
        }
        if loaded.is_empty() {
            return;
        }
        let options = EvidenceOptions {
            min_bytes: settings.min_bytes,
            here: settings,
            outside: false,
        };
        let attached = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.app.attach_evidence(linted, &loaded, &options);
        }));
        if attached.is_err() {
            self.log("internal error while joining profile evidence");
        }
        // Profile-only findings for other files stay out of this buffer.
        linted.result.reports.retain(|r| r.display == *display);
    }

    pub(super) fn pull_diagnostics(&mut self, p: DocumentDiagnosticParams) -> Value {
        let key = p.text_document.uri.as_str().to_string();
        self.refresh(&key);
        let items: Vec<LspDiagnostic> = self
            .documents
            .get(&key)
            .map(|d| d.diagnostics.iter().map(|(d, _)| d.clone()).collect())
            .unwrap_or_default();
        json!({ "kind": "full", "items": items })
    }
}

/// A linter diagnostic as LSP shows it, with what the code actions need.
pub(super) fn to_lsp(
    d: &Diagnostic,
    doc: &Document,
    index: &LineIndex16,
    file: Option<&FileIndex>,
) -> (LspDiagnostic, DiagnosticData) {
    let range = if !d.range.is_empty() || d.rule.code == rules::SYNTAX_ERROR.code {
        index.range(d.range)
    } else {
        Range::new(
            index.at_row_column(d.location.row, d.location.column),
            index.at_row_column(d.end_location.row, d.end_location.column),
        )
    };
    let related: Vec<DiagnosticRelatedInformation> = d
        .labels
        .iter()
        .filter(|l| !l.text.is_empty())
        .filter_map(|label| {
            let location = if label.file == doc.display {
                Location::new(doc.uri.clone(), index.range(label.range))
            } else {
                let path = match &doc.path.parent() {
                    Some(dir) if Path::new(&*label.file).is_relative() => dir.join(&*label.file),
                    _ => PathBuf::from(&*label.file),
                };
                let at = |row: usize, col: usize| {
                    lsp_types::Position::new(
                        row.saturating_sub(1) as u32,
                        col.saturating_sub(1) as u32,
                    )
                };
                Location::new(
                    uri::from_path(&path)?,
                    Range::new(
                        at(label.location.row, label.location.column),
                        at(label.end_location.row, label.end_location.column),
                    ),
                )
            };
            Some(DiagnosticRelatedInformation {
                location,
                message: label.text.clone(),
            })
        })
        .collect();
    let is_rule = d.rule.kind != rules::RuleKind::File;
    let noqa = if is_rule {
        let rows = d.stmt_rows.unwrap_or((d.location.row, d.end_location.row));
        file.and_then(|file| noqa_edit(&doc.text, index, file, d.rule.code, rows))
    } else {
        None
    };
    let data = DiagnosticData {
        code: d.rule.code.to_string(),
        fix: fix_data(d, index),
        noqa,
        hover: d.size.as_deref().map(|s| size_hover(d.rule.code, s)),
    };
    let mut message = d.message.clone();
    if let Some(m) = &d.evidence {
        message.push_str(&format!(
            " (measured: {} x {})",
            crate::fmt::Bytes(m.bytes),
            m.calls
        ));
    }
    let diagnostic = LspDiagnostic {
        range,
        // The level the CLI prints (`rules::level`): an error fails `check`.
        severity: Some(match d.level {
            crate::diagnostic::Level::Error => DiagnosticSeverity::ERROR,
            crate::diagnostic::Level::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(d.rule.code.to_string())),
        code_description: Uri::from_str(&d.rule.url())
            .ok()
            .map(|href| CodeDescription { href }),
        source: Some("oomlint".to_string()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        tags: None,
        data: serde_json::to_value(&data).ok(),
    };
    (diagnostic, data)
}

/// The hover over a finding: its size, then each dim's value and where it came from (bound,
/// measured by a profile, the model's configuration, assumed), and the capacity check.
fn size_hover(code: &str, size: &rules::size_estimate::SizeFigure) -> String {
    use rules::size_estimate::ValueSource;
    let e = &size.estimate;
    let dims: Vec<&str> = e.dims.iter().map(|d| d.text.as_str()).collect();
    let dtype = size.dtype.map_or("assumed float32", |d| d.name());
    let mut out = format!(
        "**{code}** `[{}]` x {} B ({dtype}) = {:#}\n\n| dim | value | basis |\n|---|---|---|\n",
        dims.join(", "),
        size.itemsize,
        crate::fmt::Bytes::saturating(e.bytes)
    );
    let mut seen: Vec<&str> = Vec::new();
    for (name, value, source) in e.dims.iter().flat_map(|d| &d.sources) {
        if seen.contains(&name.as_str()) {
            continue;
        }
        seen.push(name);
        let basis = match source {
            ValueSource::Literal => "written in the code".to_string(),
            other => other.to_string(),
        };
        out.push_str(&format!("| `{name}` | {value} | {basis} |\n"));
    }
    if let (Some(capacity), Some(exceeds)) = (size.capacity, size.exceeds_capacity) {
        let verdict = if exceeds { "exceeds" } else { "fits" };
        out.push_str(&format!(
            "\nCapacity: {} available; the allocation {verdict}.\n",
            crate::fmt::Bytes(capacity)
        ));
    }
    out
}
