//! The open buffers: where each lives (path and display name), the settings that apply to it,
//! and re-reading the configuration when a config file changes.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use lsp_types::Uri;
use serde_json::{Value, json};

use super::{Document, Server, uri};
use crate::app::App;
use crate::config::{Overrides, Resolver, Settings};

/// The pipeline on the server's thread, with the configuration files found from each buffer.
pub(super) fn new_app() -> App {
    let resolver = Resolver::new(None, false, Overrides::default()).unwrap_or_else(|e| {
        eprintln!("oomlint server: {e}");
        Resolver::new(None, true, Overrides::default()).expect("default settings")
    });
    App::in_place(Arc::new(resolver)).with_cache(!crate::cache::disabled_by_env())
}

impl Document {
    /// Applies `didChange` content changes (whole text, or a UTF-16 range) to the text.
    pub(super) fn apply_changes(
        &mut self,
        changes: Vec<lsp_types::TextDocumentContentChangeEvent>,
    ) {
        for change in changes {
            match change.range {
                None => self.text = change.text,
                Some(range) => {
                    let r = super::position::LineIndex16::new(&self.text).text_range(range);
                    self.text
                        .replace_range(usize::from(r.start())..usize::from(r.end()), &change.text);
                }
            }
        }
    }
}

impl Server {
    /// Reads the function summaries of the workspace's project (the closest config, VCS root or
    /// top package around the workspace root, else the root itself), from the cache where files
    /// did not change. Buffers are linted with them.
    pub(super) fn load_workspace(&mut self) {
        let Some(root) = self.root.clone() else {
            return;
        };
        let project = crate::discovery::project_root(&root, self.app.resolver())
            .ok()
            .flatten()
            .unwrap_or(root);
        let (summaries, roots) = self.app.summaries_of_root(&project, None);
        self.summaries = summaries;
        self.roots = roots;
    }

    pub(super) fn path_of(&self, uri: &Uri) -> PathBuf {
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

    pub(super) fn display_of(&self, path: &Path) -> Arc<str> {
        let shown = self
            .root
            .as_ref()
            .and_then(|root| path.strip_prefix(root).ok())
            .unwrap_or(path);
        Arc::from(shown.to_string_lossy().as_ref())
    }

    /// Re-reads the configuration files and re-lints every open buffer.
    pub(super) fn reload_config(&mut self) {
        self.app = new_app();
        self.load_workspace();
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

    /// The settings for a buffer; a broken config file is shown once and the defaults apply.
    pub(super) fn settings_for(&mut self, path: &Path) -> Arc<Settings> {
        match self.app.try_settings_for(path) {
            Ok(settings) => settings,
            Err(error) => {
                if self.shown_errors.insert(error.to_string()) {
                    self.notify(
                        "window/showMessage",
                        json!({ "type": 1, "message": format!("oomlint: {error}") }),
                    );
                }
                self.app.resolver().defaults()
            }
        }
    }

    pub(super) fn document(&self, uri: &Uri) -> Result<&Document, String> {
        self.documents
            .get(uri.as_str())
            .ok_or_else(|| format!("{} is not open", uri.as_str()))
    }
}
