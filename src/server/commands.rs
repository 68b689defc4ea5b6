//! Code actions and commands: a quick fix and a `# noqa` per finding, the whole-document fix
//! (`source.fixAll.oomlint`, `oomlint.fixAll`), `oomlint.applyFix`, and the hover over a
//! `# noqa` code.

use std::collections::HashMap;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;

use lsp_types::{
    CodeAction, CodeActionKind, CodeActionParams, ExecuteCommandParams, Hover, HoverContents,
    HoverParams, MarkupContent, MarkupKind, Range, TextEdit, Uri, WorkspaceEdit,
};
use serde_json::{Value, json};

use super::actions::{code_at, overlaps};
use super::position::LineIndex16;
use super::{APPLY_FIX_COMMAND, FIX_ALL_COMMAND, FIX_ALL_KIND, Server};
use crate::analysis::SummaryTable;
use crate::app::FixTarget;
use crate::linter::FixOutcome;
use crate::model::FileIndex;
use crate::rules;

fn request_kind_matches(only: &Option<Vec<CodeActionKind>>, kind: &str) -> bool {
    match only {
        None => true,
        Some(kinds) => kinds.iter().any(|k| {
            let k = k.as_str();
            kind == k || kind.starts_with(&format!("{k}."))
        }),
    }
}

fn workspace_edit(uri: &Uri, edits: Vec<TextEdit>) -> WorkspaceEdit {
    WorkspaceEdit {
        changes: Some(HashMap::from([(uri.clone(), edits)])),
        ..Default::default()
    }
}

impl Server {
    /// The whole-document edit that applies every applicable fix, if it changes anything.
    pub(super) fn fix_all_edit(&mut self, uri: &Uri) -> Result<Option<WorkspaceEdit>, String> {
        if let Some(notebook) = self.document(uri)?.notebook.clone() {
            return self.notebook_fix_all_edit(uri, &notebook);
        }
        let (path, display, text) = {
            let doc = self.document(uri)?;
            (doc.path.clone(), doc.display.clone(), doc.text.clone())
        };
        let outcome = self.fix_buffer(path, display, text.clone())?;
        if outcome.applied == 0 || outcome.text == text {
            return Ok(None);
        }
        let end = LineIndex16::new(&text).end();
        let edit = TextEdit::new(
            Range::new(lsp_types::Position::new(0, 0), end),
            outcome.text,
        );
        Ok(Some(workspace_edit(uri, vec![edit])))
    }

    /// Every applicable fix applied to `text` as the file `path` (nothing is written).
    pub(super) fn fix_buffer(
        &mut self,
        path: PathBuf,
        display: Arc<str>,
        text: String,
    ) -> Result<FixOutcome, String> {
        let settings = self.settings_for(&path);
        let target = FixTarget {
            path,
            display,
            settings,
            original: Vec::new(),
            text,
            write: false,
        };
        let fixed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.app
                .fix(&target, &SummaryTable::default(), self.unsafe_fixes)
        }))
        .map_err(|_| "internal error while fixing".to_string())?;
        Ok(fixed.outcome)
    }

    pub(super) fn code_actions(&mut self, p: CodeActionParams) -> Value {
        let uri = p.text_document.uri;
        self.refresh(uri.as_str());
        let only = p.context.only;
        let mut out: Vec<CodeAction> = Vec::new();
        if request_kind_matches(&only, CodeActionKind::QUICKFIX.as_str())
            && let Ok(doc) = self.document(&uri)
        {
            for (diagnostic, data) in &doc.diagnostics {
                if !overlaps(&diagnostic.range, &p.range) {
                    continue;
                }
                if let Some(fix) = &data.fix
                    && fix.applicability != "display-only"
                {
                    out.push(CodeAction {
                        title: fix.title.clone(),
                        kind: Some(CodeActionKind::QUICKFIX),
                        diagnostics: Some(vec![diagnostic.clone()]),
                        edit: Some(workspace_edit(&uri, fix.edits.clone())),
                        is_preferred: Some(fix.applicability == "safe"),
                        ..Default::default()
                    });
                }
                if let Some(noqa) = &data.noqa {
                    out.push(CodeAction {
                        title: format!("Ignore {} with # noqa", data.code),
                        kind: Some(CodeActionKind::QUICKFIX),
                        diagnostics: Some(vec![diagnostic.clone()]),
                        edit: Some(workspace_edit(&uri, vec![noqa.clone()])),
                        ..Default::default()
                    });
                }
            }
        }
        if request_kind_matches(&only, FIX_ALL_KIND)
            && let Ok(Some(edit)) = self.fix_all_edit(&uri)
        {
            out.push(CodeAction {
                title: "oomlint: fix all auto-fixable problems".to_string(),
                kind: Some(CodeActionKind::from(FIX_ALL_KIND.to_string())),
                edit: Some(edit),
                ..Default::default()
            });
        }
        serde_json::to_value(out).unwrap_or(Value::Null)
    }

    pub(super) fn execute_command(&mut self, p: ExecuteCommandParams) -> Result<Value, String> {
        let arg = p.arguments.first().cloned().unwrap_or(Value::Null);
        let uri_text = arg
            .as_str()
            .or_else(|| arg.get("uri").and_then(Value::as_str))
            .ok_or("expected the document's uri as the first argument")?;
        let uri = Uri::from_str(uri_text).map_err(|e| e.to_string())?;
        let (edit, label) = match p.command.as_str() {
            FIX_ALL_COMMAND => (self.fix_all_edit(&uri)?, "oomlint: fix all".to_string()),
            APPLY_FIX_COMMAND => {
                // `{uri, code, range}`: the finding with that code whose range starts there.
                let code = arg.get("code").and_then(Value::as_str);
                let range: Option<Range> = arg
                    .get("range")
                    .and_then(|r| serde_json::from_value(r.clone()).ok());
                self.refresh(uri.as_str());
                let doc = self.document(&uri)?;
                let found = doc.diagnostics.iter().find(|(d, data)| {
                    code.is_none_or(|c| c == data.code)
                        && range.is_none_or(|r| overlaps(&r, &d.range))
                        && data
                            .fix
                            .as_ref()
                            .is_some_and(|f| f.applicability != "display-only")
                });
                let (_, data) = found.ok_or("no fixable finding there")?;
                let fix = data.fix.clone().ok_or("no fix")?;
                (Some(workspace_edit(&uri, fix.edits)), fix.title)
            }
            other => return Err(format!("unknown command {other}")),
        };
        if let Some(edit) = edit {
            self.send_request(
                "workspace/applyEdit",
                json!({ "label": label, "edit": edit }),
            );
        }
        Ok(Value::Null)
    }

    pub(super) fn hover(&mut self, p: HoverParams) -> Value {
        let params = p.text_document_position_params;
        self.refresh(params.text_document.uri.as_str());
        let Ok(doc) = self.document(&params.text_document.uri) else {
            return Value::Null;
        };
        let index = LineIndex16::new(&doc.text);
        let offset = index.offset(params.position);
        // The lint's comments; a buffer that was not linted (excluded) is parsed here.
        let parsed;
        let comments = match &doc.index {
            Some(ix) => &ix.comments,
            None => {
                parsed = FileIndex::parse(&doc.text);
                &parsed.comments
            }
        };
        let Some((code, range)) = code_at(&doc.text, comments, offset) else {
            // Over a finding: its size, each dim with its value and basis.
            let at = params.position;
            let found = doc.diagnostics.iter().find_map(|(d, data)| {
                let inside = d.range.start <= at && at <= d.range.end;
                Some((d.range, data.hover.clone().filter(|_| inside)?))
            });
            let Some((range, value)) = found else {
                return Value::Null;
            };
            let hover = Hover {
                contents: HoverContents::Markup(MarkupContent {
                    kind: MarkupKind::Markdown,
                    value,
                }),
                range: Some(range),
            };
            return serde_json::to_value(hover).unwrap_or(Value::Null);
        };
        let Some(rule) = rules::rule_by_code(&code) else {
            return Value::Null;
        };
        let hover = Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value: rule.doc.to_string(),
            }),
            range: Some(index.range(range)),
        };
        serde_json::to_value(hover).unwrap_or(Value::Null)
    }
}
