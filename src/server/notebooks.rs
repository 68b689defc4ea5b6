//! Notebook documents (LSP 3.17 `notebookDocument/*`, as VS Code sends them for `.ipynb`): the
//! cells are text documents of their own, linted together as the notebook's module; each cell
//! gets the diagnostics in it, with positions, quick fixes and fix-all in its own text.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use lsp_server::Notification;
use lsp_types::{
    DidChangeNotebookDocumentParams, DidCloseNotebookDocumentParams, DidOpenNotebookDocumentParams,
    DidSaveNotebookDocumentParams, NotebookCell, NotebookCellKind, Range, TextDocumentItem,
    TextEdit, Uri, WorkspaceEdit,
};
use serde_json::{Value, json};

use super::diagnostics::to_lsp;
use super::position::LineIndex16;
use super::{Document, Server, parse};
use crate::diagnostic::Diagnostic;
use crate::discovery;
use crate::model::FileIndex;
use crate::source::notebook::Notebook;
use crate::source::{TextRange, TextSize};

/// An open notebook: where it lives and its cells in order.
pub(super) struct NotebookDoc {
    path: PathBuf,
    display: Arc<str>,
    /// (the cell document's uri, whether it is a code cell), in the notebook's order.
    cells: Vec<(String, bool)>,
}

fn cell_entry(cell: &NotebookCell) -> (String, bool) {
    (
        cell.document.as_str().to_string(),
        cell.kind == NotebookCellKind::Code,
    )
}

impl Server {
    pub(super) fn notebook_notification(&mut self, n: Notification) {
        match n.method.as_str() {
            "notebookDocument/didOpen" => {
                if let Ok(p) = parse::<DidOpenNotebookDocumentParams>(n.params) {
                    let key = p.notebook_document.uri.as_str().to_string();
                    let path = self.path_of(&p.notebook_document.uri);
                    let display = self.display_of(&path);
                    for item in p.cell_text_documents {
                        self.open_cell(item, &key, &path, &display);
                    }
                    let cells = p.notebook_document.cells.iter().map(cell_entry).collect();
                    self.notebooks.insert(
                        key.clone(),
                        NotebookDoc {
                            path,
                            display,
                            cells,
                        },
                    );
                    self.lint_notebook_and_publish(&key);
                }
            }
            "notebookDocument/didChange" => {
                if let Ok(p) = parse::<DidChangeNotebookDocumentParams>(n.params) {
                    let key = p.notebook_document.uri.as_str().to_string();
                    self.change_notebook(&key, p);
                    self.lint_notebook_and_publish(&key);
                }
            }
            "notebookDocument/didSave" => {
                if let Ok(p) = parse::<DidSaveNotebookDocumentParams>(n.params) {
                    self.lint_notebook_and_publish(p.notebook_document.uri.as_str());
                }
            }
            "notebookDocument/didClose" => {
                if let Ok(p) = parse::<DidCloseNotebookDocumentParams>(n.params) {
                    let key = p.notebook_document.uri.as_str();
                    let mut closed: Vec<String> = p
                        .cell_text_documents
                        .iter()
                        .map(|c| c.uri.as_str().to_string())
                        .collect();
                    if let Some(nb) = self.notebooks.remove(key) {
                        closed.extend(nb.cells.into_iter().map(|(uri, _)| uri));
                    }
                    for uri in closed {
                        self.close_cell(&uri);
                    }
                }
            }
            _ => {}
        }
    }

    fn open_cell(
        &mut self,
        item: TextDocumentItem,
        notebook: &str,
        path: &Path,
        display: &Arc<str>,
    ) {
        self.documents.insert(
            item.uri.as_str().to_string(),
            Document {
                uri: item.uri,
                text: item.text,
                version: item.version,
                path: path.to_path_buf(),
                display: display.clone(),
                diagnostics: Vec::new(),
                index: None,
                stale: true,
                notebook: Some(notebook.to_string()),
            },
        );
    }

    fn close_cell(&mut self, uri: &str) {
        if let Some(doc) = self.documents.remove(uri)
            && self.push
        {
            self.publish(&doc.uri, Vec::new(), None);
        }
    }

    fn change_notebook(&mut self, key: &str, p: DidChangeNotebookDocumentParams) {
        let Some((path, display)) = self
            .notebooks
            .get(key)
            .map(|nb| (nb.path.clone(), nb.display.clone()))
        else {
            return;
        };
        let Some(change) = p.change.cells else {
            return;
        };
        if let Some(structure) = change.structure {
            let mut closed = Vec::new();
            if let Some(nb) = self.notebooks.get_mut(key) {
                let start = (structure.array.start as usize).min(nb.cells.len());
                let end = (start + structure.array.delete_count as usize).min(nb.cells.len());
                let added: Vec<(String, bool)> = structure
                    .array
                    .cells
                    .iter()
                    .flatten()
                    .map(cell_entry)
                    .collect();
                nb.cells.splice(start..end, added);
            }
            for item in structure.did_open.into_iter().flatten() {
                self.open_cell(item, key, &path, &display);
            }
            for id in structure.did_close.into_iter().flatten() {
                closed.push(id.uri.as_str().to_string());
            }
            for uri in closed {
                self.close_cell(&uri);
            }
        }
        if let Some(nb) = self.notebooks.get_mut(key) {
            for cell in change.data.iter().flatten() {
                let (uri, is_code) = cell_entry(cell);
                if let Some(entry) = nb.cells.iter_mut().find(|(u, _)| *u == uri) {
                    entry.1 = is_code;
                }
            }
        }
        for content in change.text_content.into_iter().flatten() {
            if let Some(doc) = self.documents.get_mut(content.document.uri.as_str()) {
                doc.apply_changes(content.changes);
                doc.version = content.document.version;
            }
        }
    }

    /// The notebook as `.ipynb` text for the linter: its cells, in order.
    fn notebook_json(&self, key: &str) -> Option<(String, PathBuf, Arc<str>)> {
        let nb = self.notebooks.get(key)?;
        let cells: Vec<Value> = nb
            .cells
            .iter()
            .map(|(uri, is_code)| {
                let text = self
                    .documents
                    .get(uri)
                    .map(|d| d.text.as_str())
                    .unwrap_or("");
                json!({
                    "cell_type": if *is_code { "code" } else { "markdown" },
                    "metadata": {},
                    "source": text,
                })
            })
            .collect();
        let text = json!({
            "cells": cells,
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        })
        .to_string();
        Some((text, nb.path.clone(), nb.display.clone()))
    }

    /// Lints the notebook and gives each cell its diagnostics (and publishes them when pushing).
    pub(super) fn lint_notebook_and_publish(&mut self, key: &str) {
        self.lint_notebook(key);
        if !self.push {
            return;
        }
        let Some(nb) = self.notebooks.get(key) else {
            return;
        };
        for (uri, _) in &nb.cells {
            if let Some(doc) = self.documents.get(uri) {
                let diagnostics = doc.diagnostics.iter().map(|(d, _)| d.clone()).collect();
                self.publish(&doc.uri, diagnostics, Some(doc.version));
            }
        }
    }

    pub(super) fn lint_notebook(&mut self, key: &str) {
        let Some((text, path, display)) = self.notebook_json(key) else {
            return;
        };
        let settings = self.settings_for(&path);
        let mut per_cell: HashMap<usize, Vec<Diagnostic>> = HashMap::new();
        let excluded = discovery::is_excluded_anywhere(&path, self.app.resolver()).unwrap_or(false);
        if !excluded {
            let linted = self.lint_guarded(&text, &path, &display, &settings);
            match linted {
                Ok(linted) => {
                    for report in linted.result.reports {
                        let Some(map) = report.index.as_ref().and_then(|i| i.cells.clone()) else {
                            continue;
                        };
                        for d in report.diagnostics {
                            let Some(spot) = d.cell else { continue };
                            let Some(span) = map.cells.iter().find(|c| c.number == spot.cell)
                            else {
                                continue;
                            };
                            per_cell
                                .entry(spot.cell)
                                .or_default()
                                .push(in_cell(d, span.range, &display));
                        }
                    }
                }
                Err(_) => self.log(&format!("internal error while linting {display}")),
            }
        }
        let Some(cells) = self.notebooks.get(key).map(|nb| nb.cells.clone()) else {
            return;
        };
        for (i, (uri, _)) in cells.iter().enumerate() {
            let found = per_cell.remove(&(i + 1)).unwrap_or_default();
            let Some(doc) = self.documents.get(uri) else {
                continue;
            };
            let index = LineIndex16::new(&doc.text);
            // The cell's own comments, for the `# noqa` quick fix (rows are the cell's).
            let file = FileIndex::parse(&doc.text);
            let converted = found
                .iter()
                .map(|d| to_lsp(d, doc, &index, Some(&file)))
                .collect();
            if let Some(doc) = self.documents.get_mut(uri) {
                doc.diagnostics = converted;
                doc.stale = false;
            }
        }
    }

    /// Fix-all for one cell: the notebook is fixed as a whole, and the cell's new text is the edit.
    pub(super) fn notebook_fix_all_edit(
        &mut self,
        uri: &Uri,
        notebook: &str,
    ) -> Result<Option<WorkspaceEdit>, String> {
        let (text, path, display) = self
            .notebook_json(notebook)
            .ok_or_else(|| format!("{notebook} is not open"))?;
        let position = self
            .notebooks
            .get(notebook)
            .and_then(|nb| nb.cells.iter().position(|(u, _)| u == uri.as_str()))
            .ok_or("the cell is not in its notebook")?;
        let outcome = self.fix_buffer(path, display, text)?;
        if outcome.applied == 0 {
            return Ok(None);
        }
        let nb = Notebook::parse(&outcome.text).map_err(|e| e.to_string())?;
        let doc = self.document(uri)?;
        let Some(cell) = nb.cells.iter().find(|c| c.number == position + 1) else {
            return Ok(None);
        };
        if cell.text == doc.text {
            return Ok(None);
        }
        let edit = TextEdit::new(
            Range::new(
                lsp_types::Position::new(0, 0),
                LineIndex16::new(&doc.text).end(),
            ),
            cell.text.clone(),
        );
        Ok(Some(WorkspaceEdit {
            changes: Some(HashMap::from([(uri.clone(), vec![edit])])),
            ..Default::default()
        }))
    }
}

/// A diagnostic of the notebook's module made one of the cell whose module range is `cell`:
/// ranges shifted into the cell's text; chain steps in other cells and a fix that is not all in
/// this cell are left out.
fn in_cell(mut d: Diagnostic, cell: TextRange, display: &Arc<str>) -> Diagnostic {
    let inside = |r: TextRange| cell.start() <= r.start() && r.end() <= cell.end();
    let shift = |r: TextRange| r - cell.start();
    d.range = if inside(d.range) {
        shift(d.range)
    } else {
        TextRange::empty(TextSize::new(0))
    };
    // The statement's rows are the module's; the finding's own rows (already the cell's) place
    // a `# noqa` comment.
    d.stmt_rows = None;
    d.labels.retain(|l| l.file != *display || inside(l.range));
    for label in &mut d.labels {
        if label.file == *display {
            label.range = shift(label.range);
        }
    }
    if let Some(fix) = &mut d.fix {
        if fix.edits.iter().all(|e| inside(e.range)) {
            for e in &mut fix.edits {
                e.range = shift(e.range);
            }
        } else {
            d.fix = None;
        }
    }
    d
}
