//! A finding as the user sees it: code, message, where, the chain that leads to it.

use std::sync::Arc;

use serde::Serialize;

use crate::analysis::StepRole;
use crate::source::{Position, TextRange};

/// A secondary location: one step of the chain (the primary location is the diagnostic's own).
#[derive(Clone, Debug, Serialize)]
pub struct Label {
    pub role: StepRole,
    /// The file this label is in (chains of helper functions point into other files).
    pub file: Arc<str>,
    #[serde(skip)]
    pub range: TextRange,
    pub location: Position,
    pub end_location: Position,
    pub text: String,
}

/// How safe a fix is to apply (the fix engine fills these in).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Applicability {
    Safe,
    Unsafe,
    DisplayOnly,
}

/// One text replacement.
#[derive(Clone, Debug, Serialize)]
pub struct Edit {
    pub content: String,
    #[serde(skip)]
    pub range: TextRange,
    pub location: Position,
    pub end_location: Position,
}

#[derive(Clone, Debug, Serialize)]
pub struct Fix {
    pub applicability: Applicability,
    pub message: String,
    pub edits: Vec<Edit>,
}

/// One reported problem.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    pub code: &'static str,
    pub name: &'static str,
    pub message: String,
    pub file: Arc<str>,
    pub range: TextRange,
    pub location: Position,
    pub end_location: Position,
    /// The text of the primary label (at the sink).
    pub primary_label: String,
    pub labels: Vec<Label>,
    /// The suggested rewrite, as a sentence with code.
    pub help: Option<String>,
    /// Extra lines (the size it materializes).
    pub notes: Vec<String>,
    pub fix: Option<Fix>,
    pub noqa_row: Option<usize>,
    /// First and last row of the reported statement (suppression comments may sit on any).
    pub stmt_rows: Option<(usize, usize)>,
}

impl Diagnostic {
    /// Sort key: file, then position, then code.
    pub fn sort_key(&self) -> (&str, Position, &'static str) {
        (&self.file, self.location, self.code)
    }
}
