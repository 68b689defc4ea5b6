//! `oomlint server`: a language server over stdio. It drives the same pipeline as `check` on the
//! open buffers: diagnostics (pushed, or pulled with `textDocument/diagnostic`), a quick fix and
//! a `# noqa` action per finding, `source.fixAll.oomlint`, the `oomlint.applyFix` /
//! `oomlint.fixAll` commands, and the rule's documentation on hover over a `# noqa` code.
//! Configuration comes from the files' `pyproject.toml` / `oomlint.toml` (re-read when they
//! change) plus `initializationOptions` (`{"unsafeFixes": true}`).

mod actions;
mod capabilities;
mod commands;
mod diagnostics;
mod documents;
mod notebooks;
pub mod position;
pub mod uri;

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::{
    Diagnostic as LspDiagnostic, DidChangeTextDocumentParams, DidOpenTextDocumentParams,
    DidSaveTextDocumentParams, InitializeParams, Uri,
};
use serde_json::{Value, json};

use self::actions::DiagnosticData;
pub use self::capabilities::capabilities;
use self::documents::new_app;
use crate::app::App;
use crate::config::CONFIG_NAMES;
use crate::linter::WORKER_STACK;
use crate::model::FileIndex;

/// The kind of the fix-all source action.
pub const FIX_ALL_KIND: &str = "source.fixAll.oomlint";
pub const APPLY_FIX_COMMAND: &str = "oomlint.applyFix";
pub const FIX_ALL_COMMAND: &str = "oomlint.fixAll";

/// Runs the server on stdin/stdout until `shutdown` + `exit`; returns the exit code.
pub fn run() -> i32 {
    let spawned = std::thread::Builder::new()
        .name("oomlint-server".into())
        .stack_size(WORKER_STACK)
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

/// One open buffer and what its last lint found.
struct Document {
    uri: Uri,
    text: String,
    version: i32,
    path: PathBuf,
    display: Arc<str>,
    diagnostics: Vec<(LspDiagnostic, DiagnosticData)>,
    /// The lint's index of `text` (comments), when it was linted.
    index: Option<Arc<FileIndex>>,
    /// The text changed since `diagnostics` were computed.
    stale: bool,
    /// For a notebook's cell: the notebook's key (the cell is linted with the others).
    notebook: Option<String>,
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
    /// Open notebooks by uri (their cells are in `documents`).
    notebooks: HashMap<String, notebooks::NotebookDoc>,
    /// The function summaries of the workspace's project (read at initialize, again on save).
    summaries: Arc<crate::analysis::SummaryTable>,
    /// The project roots the summaries were read under (module names of buffers).
    roots: Vec<PathBuf>,
}

/// `unsafeFixes` in initialization options or `didChangeConfiguration` settings (top level or
/// under `oomlint`).
fn unsafe_fixes_option(options: &Value) -> Option<bool> {
    options
        .get("unsafeFixes")
        .or_else(|| options.get("oomlint").and_then(|o| o.get("unsafeFixes")))
        .and_then(Value::as_bool)
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
            notebooks: HashMap::new(),
            summaries: Arc::default(),
            roots: Vec::new(),
        };
        server.load_workspace();
        let dynamic_watch = init
            .capabilities
            .workspace
            .as_ref()
            .and_then(|w| w.did_change_watched_files.as_ref())
            .and_then(|d| d.dynamic_registration)
            .unwrap_or(false);
        if dynamic_watch {
            // Listed in the order clients have always been sent.
            let watchers: Vec<Value> = CONFIG_NAMES
                .iter()
                .rev()
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
                            index: None,
                            stale: true,
                            notebook: None,
                        },
                    );
                    self.lint_and_publish(&key);
                }
            }
            "textDocument/didChange" => {
                if let Ok(p) = parse::<DidChangeTextDocumentParams>(n.params) {
                    let key = p.text_document.uri.as_str().to_string();
                    if let Some(doc) = self.documents.get_mut(&key) {
                        doc.apply_changes(p.content_changes);
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
                    } else {
                        // The saved file's summaries may have changed what other buffers call.
                        self.load_workspace();
                        let keys: Vec<String> = self.documents.keys().cloned().collect();
                        for key in keys {
                            self.lint_and_publish(&key);
                        }
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
            method if method.starts_with("notebookDocument/") => self.notebook_notification(n),
            "workspace/didChangeWatchedFiles" => self.reload_config(),
            "workspace/didChangeConfiguration" => {
                if let Some(v) = n.params.get("settings").and_then(unsafe_fixes_option) {
                    self.unsafe_fixes = Some(v);
                }
            }
            _ => {}
        }
    }
}

fn parse<T: serde::de::DeserializeOwned>(params: Value) -> Result<T, String> {
    serde_json::from_value(params).map_err(|e| format!("invalid params: {e}"))
}
