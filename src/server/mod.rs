//! `oomlint server`: a language server over stdio. It drives the same pipeline as `check` on the
//! open buffers: diagnostics (pushed, or pulled with `textDocument/diagnostic`), a quick fix and
//! a `# noqa` action per finding, `source.fixAll.oomlint`, the `oomlint.applyFix` /
//! `oomlint.fixAll` commands, and the rule's documentation on hover over a `# noqa` code.
//! Configuration comes from the files' `pyproject.toml` / `oomlint.toml` (re-read when they
//! change) plus `initializationOptions` (`{"unsafeFixes": true}`).

mod actions;
pub mod position;
pub mod uri;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOptions, CodeActionParams, CodeActionProviderCapability,
    CodeDescription, Diagnostic as LspDiagnostic, DiagnosticOptions, DiagnosticRelatedInformation,
    DiagnosticServerCapabilities, DiagnosticSeverity, DidChangeTextDocumentParams,
    DidOpenTextDocumentParams, DidSaveTextDocumentParams, DocumentDiagnosticParams,
    ExecuteCommandOptions, ExecuteCommandParams, Hover, HoverContents, HoverParams,
    HoverProviderCapability, InitializeParams, Location, MarkupContent, MarkupKind, NumberOrString,
    PositionEncodingKind, PublishDiagnosticsParams, Range, SaveOptions, ServerCapabilities,
    TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions,
    TextDocumentSyncSaveOptions, TextEdit, Uri, WorkspaceEdit,
};
use serde_json::{Value, json};

use self::actions::{DiagnosticData, code_at, fix_data, noqa_edit, overlaps};
use self::position::LineIndex16;
use crate::analysis::SummaryTable;
use crate::app::{App, EvidenceOptions, FixTarget, Linted};
use crate::config::{Overrides, Resolver, Settings};
use crate::diagnostic::Diagnostic;
use crate::rules;

/// The kind of the fix-all source action.
pub const FIX_ALL_KIND: &str = "source.fixAll.oomlint";
pub const APPLY_FIX_COMMAND: &str = "oomlint.applyFix";
pub const FIX_ALL_COMMAND: &str = "oomlint.fixAll";
const CONFIG_NAMES: &[&str] = &["pyproject.toml", "oomlint.toml", ".oomlint.toml"];
/// Deeply nested code is parsed and walked recursively (see `linter`).
const STACK: usize = 512 * 1024 * 1024;

/// Runs the server on stdin/stdout until `shutdown` + `exit`; returns the exit code.
pub fn run() -> i32 {
    let spawned = std::thread::Builder::new()
        .name("oomlint-server".into())
        .stack_size(STACK)
        .spawn(serve);
    let outcome = match spawned {
        Ok(handle) => handle
            .join()
            .unwrap_or_else(|_| Err("the server thread panicked".to_string())),
        Err(e) => Err(format!("cannot start the server thread: {e}")),
    };
    match outcome {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("oomlint server: {e}");
            // An `exit` without `shutdown` is exit code 1 (LSP); other failures are errors.
            if e.contains("without shutdown") { 1 } else { 2 }
        }
    }
}

fn serve() -> Result<(), String> {
    let (connection, io_threads) = Connection::stdio();
    let (id, params) = connection.initialize_start().map_err(|e| e.to_string())?;
    let init: InitializeParams =
        serde_json::from_value(params).map_err(|e| format!("bad initialize params: {e}"))?;
    let mut server = Server::new(&init, connection.sender.clone());
    let result = json!({
        "capabilities": capabilities(),
        "serverInfo": { "name": "oomlint", "version": env!("CARGO_PKG_VERSION") },
    });
    connection
        .initialize_finish(id, result)
        .map_err(|e| e.to_string())?;
    let outcome = server.main_loop(&connection);
    drop(server);
    drop(connection);
    let joined = io_threads.join().map_err(|e| e.to_string());
    outcome.and(joined)
}

pub fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(PositionEncodingKind::UTF16),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::FULL),
                will_save: None,
                will_save_wait_until: None,
                save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                    include_text: Some(false),
                })),
            },
        )),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![
                CodeActionKind::QUICKFIX,
                CodeActionKind::from(FIX_ALL_KIND.to_string()),
            ]),
            work_done_progress_options: Default::default(),
            resolve_provider: Some(false),
        })),
        execute_command_provider: Some(ExecuteCommandOptions {
            commands: vec![APPLY_FIX_COMMAND.to_string(), FIX_ALL_COMMAND.to_string()],
            work_done_progress_options: Default::default(),
        }),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        diagnostic_provider: Some(DiagnosticServerCapabilities::Options(DiagnosticOptions {
            identifier: Some("oomlint".to_string()),
            inter_file_dependencies: false,
            workspace_diagnostics: false,
            work_done_progress_options: Default::default(),
        })),
        ..ServerCapabilities::default()
    }
}

/// One open buffer and what its last lint found.
struct Document {
    uri: Uri,
    text: String,
    version: i32,
    path: PathBuf,
    display: Arc<str>,
    diagnostics: Vec<(LspDiagnostic, DiagnosticData)>,
    /// The text changed since `diagnostics` were computed.
    stale: bool,
}

struct Server {
    sender: crossbeam_channel::Sender<Message>,
    root: Option<PathBuf>,
    app: App,
    documents: HashMap<String, Document>,
    /// `unsafeFixes` from the client; `None`: the configuration's `unsafe-fixes`.
    unsafe_fixes: Option<bool>,
    /// Publish diagnostics (the client does not pull them).
    push: bool,
    refresh_support: bool,
    next_id: i32,
    shown_errors: HashSet<String>,
    /// Loaded profile evidence by path (`profiles` in the configuration).
    evidence: HashMap<PathBuf, Option<Arc<crate::evidence::Evidence>>>,
}

/// The pipeline on the server's thread, with the configuration files found from each buffer.
fn new_app() -> App {
    let resolver = Resolver::new(None, false, Overrides::default()).unwrap_or_else(|e| {
        eprintln!("oomlint server: {e}");
        Resolver::new(None, true, Overrides::default()).expect("default settings")
    });
    App::in_place(Arc::new(resolver))
}

/// `unsafeFixes` in initialization options or `didChangeConfiguration` settings (top level or
/// under `oomlint`).
fn unsafe_fixes_option(options: &Value) -> Option<bool> {
    options
        .get("unsafeFixes")
        .or_else(|| options.get("oomlint").and_then(|o| o.get("unsafeFixes")))
        .and_then(Value::as_bool)
}

fn request_kind_matches(only: &Option<Vec<CodeActionKind>>, kind: &str) -> bool {
    match only {
        None => true,
        Some(kinds) => kinds.iter().any(|k| {
            let k = k.as_str();
            kind == k || kind.starts_with(&format!("{k}."))
        }),
    }
}

impl Server {
    fn new(init: &InitializeParams, sender: crossbeam_channel::Sender<Message>) -> Self {
        #[allow(deprecated)]
        let root = init
            .workspace_folders
            .as_ref()
            .and_then(|f| f.first())
            .and_then(|f| uri::to_path(f.uri.as_str()))
            .or_else(|| {
                init.root_uri
                    .as_ref()
                    .and_then(|u| uri::to_path(u.as_str()))
            });
        let text_caps = init.capabilities.text_document.as_ref();
        let pull = text_caps.is_some_and(|t| t.diagnostic.is_some());
        let refresh_support = init
            .capabilities
            .workspace
            .as_ref()
            .and_then(|w| w.diagnostic.as_ref())
            .and_then(|d| d.refresh_support)
            .unwrap_or(false);
        let mut server = Server {
            sender,
            root,
            app: new_app(),
            documents: HashMap::new(),
            unsafe_fixes: init
                .initialization_options
                .as_ref()
                .and_then(unsafe_fixes_option),
            push: !pull,
            refresh_support,
            next_id: 0,
            shown_errors: HashSet::new(),
            evidence: HashMap::new(),
        };
        let dynamic_watch = init
            .capabilities
            .workspace
            .as_ref()
            .and_then(|w| w.did_change_watched_files.as_ref())
            .and_then(|d| d.dynamic_registration)
            .unwrap_or(false);
        if dynamic_watch {
            let watchers: Vec<Value> = CONFIG_NAMES
                .iter()
                .map(|n| json!({ "globPattern": format!("**/{n}") }))
                .collect();
            server.send_request(
                "client/registerCapability",
                json!({ "registrations": [{
                    "id": "oomlint-config-watch",
                    "method": "workspace/didChangeWatchedFiles",
                    "registerOptions": { "watchers": watchers },
                }]}),
            );
        }
        server
    }

    fn send(&self, message: impl Into<Message>) {
        let _ = self.sender.send(message.into());
    }

    fn send_request(&mut self, method: &str, params: Value) {
        self.next_id += 1;
        let id = RequestId::from(format!("oomlint-{}", self.next_id));
        self.send(Request::new(id, method.to_string(), params));
    }

    fn notify(&self, method: &str, params: impl serde::Serialize) {
        self.send(Notification::new(method.to_string(), params));
    }

    fn log(&self, message: &str) {
        self.notify(
            "window/logMessage",
            json!({ "type": 4, "message": format!("oomlint: {message}") }),
        );
    }

    fn main_loop(&mut self, connection: &Connection) -> Result<(), String> {
        while let Ok(message) = connection.receiver.recv() {
            match message {
                Message::Request(req) => {
                    if connection
                        .handle_shutdown(&req)
                        .map_err(|e| e.to_string())?
                    {
                        return Ok(());
                    }
                    let response = self.handle_request(req);
                    self.send(response);
                }
                Message::Notification(n) if n.method == "exit" => {
                    return Err("exit without shutdown".to_string());
                }
                Message::Notification(n) => self.handle_notification(n),
                Message::Response(r) => {
                    if let Err(err) = r.response_result {
                        self.log(&format!("request {} failed: {}", r.id, err.message));
                    }
                }
            }
        }
        Err("the client closed the connection without shutdown".to_string())
    }

    fn handle_request(&mut self, req: Request) -> Response {
        let id = req.id.clone();
        let outcome = match req.method.as_str() {
            "textDocument/codeAction" => parse(req.params).map(|p| self.code_actions(p)),
            "textDocument/hover" => parse(req.params).map(|p| self.hover(p)),
            "textDocument/diagnostic" => parse(req.params).map(|p| self.pull_diagnostics(p)),
            "workspace/executeCommand" => parse(req.params).and_then(|p| self.execute_command(p)),
            _ => {
                return Response::new_err(
                    id,
                    ErrorCode::MethodNotFound as i32,
                    format!("unknown request {}", req.method),
                );
            }
        };
        match outcome {
            Ok(value) => Response::new_ok(id, value),
            Err(message) => Response::new_err(id, ErrorCode::InvalidParams as i32, message),
        }
    }

    fn handle_notification(&mut self, n: Notification) {
        match n.method.as_str() {
            "textDocument/didOpen" => {
                if let Ok(p) = parse::<DidOpenTextDocumentParams>(n.params) {
                    let doc = p.text_document;
                    let key = doc.uri.as_str().to_string();
                    let path = self.path_of(&doc.uri);
                    let display = self.display_of(&path);
                    self.documents.insert(
                        key.clone(),
                        Document {
                            uri: doc.uri,
                            text: doc.text,
                            version: doc.version,
                            path,
                            display,
                            diagnostics: Vec::new(),
                            stale: true,
                        },
                    );
                    self.lint_and_publish(&key);
                }
            }
            "textDocument/didChange" => {
                if let Ok(p) = parse::<DidChangeTextDocumentParams>(n.params) {
                    let key = p.text_document.uri.as_str().to_string();
                    if let Some(doc) = self.documents.get_mut(&key) {
                        for change in p.content_changes {
                            match change.range {
                                None => doc.text = change.text,
                                Some(range) => {
                                    let r = LineIndex16::new(&doc.text).text_range(range);
                                    doc.text.replace_range(
                                        usize::from(r.start())..usize::from(r.end()),
                                        &change.text,
                                    );
                                }
                            }
                        }
                        doc.version = p.text_document.version;
                        self.lint_and_publish(&key);
                    }
                }
            }
            "textDocument/didSave" => {
                if let Ok(p) = parse::<DidSaveTextDocumentParams>(n.params) {
                    let key = p.text_document.uri.as_str().to_string();
                    let is_config = uri::to_path(&key)
                        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                        .is_some_and(|name| CONFIG_NAMES.contains(&name.as_str()));
                    if is_config {
                        self.reload_config();
                    } else if self.documents.contains_key(&key) {
                        self.lint_and_publish(&key);
                    }
                }
            }
            "textDocument/didClose" => {
                if let Some(uri) = n
                    .params
                    .pointer("/textDocument/uri")
                    .and_then(Value::as_str)
                    && let Some(doc) = self.documents.remove(uri)
                    && self.push
                {
                    self.publish(&doc.uri, Vec::new(), None);
                }
            }
            "workspace/didChangeWatchedFiles" => self.reload_config(),
            "workspace/didChangeConfiguration" => {
                if let Some(v) = n.params.get("settings").and_then(unsafe_fixes_option) {
                    self.unsafe_fixes = Some(v);
                }
            }
            _ => {}
        }
    }

    fn path_of(&self, uri: &Uri) -> PathBuf {
        uri::to_path(uri.as_str()).unwrap_or_else(|| {
            // An unsaved buffer: lint it as a file in the workspace root.
            let base = self
                .root
                .clone()
                .or_else(|| std::env::current_dir().ok())
                .unwrap_or_default();
            base.join("untitled.py")
        })
    }

    fn display_of(&self, path: &Path) -> Arc<str> {
        let shown = self
            .root
            .as_ref()
            .and_then(|root| path.strip_prefix(root).ok())
            .unwrap_or(path);
        Arc::from(shown.to_string_lossy().as_ref())
    }

    /// Re-reads the configuration files and re-lints every open buffer.
    fn reload_config(&mut self) {
        self.app = new_app();
        self.shown_errors.clear();
        self.evidence.clear();
        let keys: Vec<String> = self.documents.keys().cloned().collect();
        for key in keys {
            self.lint_and_publish(&key);
        }
        if !self.push && self.refresh_support {
            self.send_request("workspace/diagnostic/refresh", Value::Null);
        }
    }

    fn settings_for(&mut self, path: &Path) -> Arc<Settings> {
        let settings = self.app.settings_for(path);
        for error in self.app.resolver().take_errors() {
            if self.shown_errors.insert(error.0.clone()) {
                self.notify(
                    "window/showMessage",
                    json!({ "type": 1, "message": format!("oomlint: {error}") }),
                );
            }
        }
        settings
    }

    /// Is `path` excluded by the configuration (the file or a folder between it and the root)?
    fn excluded(settings: &Settings, path: &Path) -> bool {
        let rel = path.strip_prefix(&settings.root).unwrap_or(path);
        let mut current = PathBuf::new();
        rel.components().any(|c| {
            current.push(c);
            settings.is_excluded(&settings.root.join(&current))
        })
    }

    /// Pushes fresh diagnostics, or (for a client that pulls them) marks them stale.
    fn lint_and_publish(&mut self, key: &str) {
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
    fn refresh(&mut self, key: &str) {
        if self.documents.get(key).is_some_and(|d| d.stale) {
            self.lint(key);
        }
    }

    fn publish(&self, uri: &Uri, diagnostics: Vec<LspDiagnostic>, version: Option<i32>) {
        self.notify(
            "textDocument/publishDiagnostics",
            PublishDiagnosticsParams {
                uri: uri.clone(),
                diagnostics,
                version,
            },
        );
    }

    fn lint(&mut self, key: &str) {
        let Some((path, display, text)) = self
            .documents
            .get(key)
            .map(|d| (d.path.clone(), d.display.clone(), d.text.clone()))
        else {
            return;
        };
        let settings = self.settings_for(&path);
        let found = if Self::excluded(&settings, &path) {
            Vec::new()
        } else {
            let linted = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                self.app.lint_text(&text, &path, display.clone(), &settings)
            }));
            match linted {
                Ok(mut linted) => {
                    self.attach_evidence(&mut linted, &settings, &display);
                    linted
                        .result
                        .reports
                        .into_iter()
                        .flat_map(|r| r.diagnostics)
                        .collect()
                }
                Err(_) => {
                    self.log(&format!("internal error while linting {display}"));
                    Vec::new()
                }
            }
        };
        let Some(doc) = self.documents.get(key) else {
            return;
        };
        let index = LineIndex16::new(&doc.text);
        let comments = crate::source::parse_module(&doc.text, false).comments;
        let converted = found
            .iter()
            .map(|d| to_lsp(d, doc, &index, &comments))
            .collect();
        if let Some(doc) = self.documents.get_mut(key) {
            doc.diagnostics = converted;
            doc.stale = false;
        }
    }

    /// Profile evidence named by the configuration's `profiles` (read once per configuration).
    fn attach_evidence(&mut self, linted: &mut Linted, settings: &Settings, display: &Arc<str>) {
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

    fn document(&self, uri: &Uri) -> Result<&Document, String> {
        self.documents
            .get(uri.as_str())
            .ok_or_else(|| format!("{} is not open", uri.as_str()))
    }

    fn pull_diagnostics(&mut self, p: DocumentDiagnosticParams) -> Value {
        let key = p.text_document.uri.as_str().to_string();
        self.refresh(&key);
        let items: Vec<LspDiagnostic> = self
            .documents
            .get(&key)
            .map(|d| d.diagnostics.iter().map(|(d, _)| d.clone()).collect())
            .unwrap_or_default();
        json!({ "kind": "full", "items": items })
    }

    /// The whole-document edit that applies every applicable fix, if it changes anything.
    fn fix_all_edit(&mut self, uri: &Uri) -> Result<Option<WorkspaceEdit>, String> {
        let (path, display, text) = {
            let doc = self.document(uri)?;
            (doc.path.clone(), doc.display.clone(), doc.text.clone())
        };
        let settings = self.settings_for(&path);
        let target = FixTarget {
            path,
            display,
            settings,
            original: Vec::new(),
            text: text.clone(),
            write: false,
        };
        let fixed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.app
                .fix(&target, &SummaryTable::default(), self.unsafe_fixes)
        }))
        .map_err(|_| "internal error while fixing".to_string())?;
        let outcome = fixed.outcome;
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

    fn code_actions(&mut self, p: CodeActionParams) -> Value {
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

    fn execute_command(&mut self, p: ExecuteCommandParams) -> Result<Value, String> {
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

    fn hover(&mut self, p: HoverParams) -> Value {
        let params = p.text_document_position_params;
        let Ok(doc) = self.document(&params.text_document.uri) else {
            return Value::Null;
        };
        let index = LineIndex16::new(&doc.text);
        let offset = index.offset(params.position);
        let comments = crate::source::parse_module(&doc.text, false).comments;
        let Some((code, range)) = code_at(&doc.text, &comments, offset) else {
            return Value::Null;
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

fn parse<T: serde::de::DeserializeOwned>(params: Value) -> Result<T, String> {
    serde_json::from_value(params).map_err(|e| format!("invalid params: {e}"))
}

fn workspace_edit(uri: &Uri, edits: Vec<TextEdit>) -> WorkspaceEdit {
    WorkspaceEdit {
        changes: Some(HashMap::from([(uri.clone(), edits)])),
        ..Default::default()
    }
}

/// A linter diagnostic as LSP shows it, with what the code actions need.
fn to_lsp(
    d: &Diagnostic,
    doc: &Document,
    index: &LineIndex16,
    comments: &[crate::source::TextRange],
) -> (LspDiagnostic, DiagnosticData) {
    let range = if !d.range.is_empty() || d.rule.code == rules::SYNTAX_ERROR.code {
        index.range(d.range)
    } else {
        Range::new(
            index.from_row_column(d.location.row, d.location.column),
            index.from_row_column(d.end_location.row, d.end_location.column),
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
        noqa_edit(&doc.text, index, comments, d.rule.code, rows)
    } else {
        None
    };
    let data = DiagnosticData {
        code: d.rule.code.to_string(),
        fix: fix_data(d, index),
        noqa,
    };
    let mut message = d.message.clone();
    if let Some(m) = &d.evidence {
        message.push_str(&format!(
            " (measured: {} x {})",
            crate::rules::format_bytes(u128::from(m.bytes)),
            m.calls
        ));
    }
    let diagnostic = LspDiagnostic {
        range,
        severity: Some(if is_rule {
            DiagnosticSeverity::WARNING
        } else {
            DiagnosticSeverity::ERROR
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
