//! The output model of a lint run, at the bottom of the crate: what the linter produces and what
//! cross-referencing, the emitters in `report`, the CLI and the server read.

use std::collections::HashMap;
use std::sync::Arc;

use crate::analysis::SummaryTable;
use crate::diagnostic::Diagnostic;
use crate::rules::RuleInfo;
use crate::source::notebook::CellMap;
use crate::source::{Lines, ParsedModule, Position, Suppressions, TextRange};

/// The result for one file.
pub struct FileReport {
    pub display: Arc<str>,
    /// The text, kept only when there is something to show from it.
    pub source: Option<Arc<str>>,
    pub diagnostics: Vec<Diagnostic>,
    /// What the linter learned about the text (`None` when it could not be read).
    pub index: Option<Arc<FileIndex>>,
}

/// A file's text as the parser saw it, built once by the linter: later steps (suppressions of
/// profile findings, the server's `# noqa` actions and hover) read it instead of parsing again.
pub struct FileIndex {
    pub lines: Lines,
    /// Byte ranges of the comments.
    pub comments: Vec<TextRange>,
    /// Byte ranges of the tokens that run over a line end (see `ParsedModule`).
    pub multiline_tokens: Vec<TextRange>,
    pub suppressions: Suppressions,
    /// In a notebook: where its code cells sit in the text (the module the linter parsed).
    pub cells: Option<CellMap>,
}

impl FileIndex {
    /// Takes what it keeps from a parse of `text`.
    pub fn new(text: &str, parsed: &ParsedModule) -> Self {
        let lines = Lines::new(text);
        let suppressions = Suppressions::from_comments(text, &lines, &parsed.comments);
        FileIndex {
            lines,
            comments: parsed.comments.clone(),
            multiline_tokens: parsed.multiline_tokens.clone(),
            suppressions,
            cells: None,
        }
    }

    /// The index of a text the linter did not see (an excluded editor buffer).
    pub fn parse(text: &str) -> Self {
        Self::new(text, &crate::source::parse_module(text, false))
    }
}

/// Sources of files that chains point into, by display path (for rendering labels).
pub type SourceMap = HashMap<Arc<str>, Arc<str>>;

pub struct LintResult {
    pub reports: Vec<FileReport>,
    pub sources: SourceMap,
    /// The function summaries of the tree (fixes re-lint files with them).
    pub summaries: Arc<SummaryTable>,
}

/// A diagnostic about a whole file (unreadable, syntax) at a position.
pub fn file_diagnostic(
    rule: &'static RuleInfo,
    file: Arc<str>,
    message: String,
    at: Position,
) -> Diagnostic {
    Diagnostic {
        rule,
        level: crate::rules::level::rule_level(rule, false),
        pattern_certain: false,
        in_test_file: false,
        message,
        file,
        range: TextRange::default(),
        location: at,
        end_location: at,
        primary_label: String::new(),
        labels: Vec::new(),
        help: None,
        notes: Vec::new(),
        fix: None,
        noqa_row: None,
        cell: None,
        stmt_rows: None,
        evidence: None,
        size: None,
    }
}

// What `oomlint sites` lists (the linter fills these in; `report::sites` prints them).

/// The enlargements of one file.
#[derive(Debug, serde::Serialize)]
pub struct FileSites {
    pub file: Arc<str>,
    pub enlargements: Vec<EnlargementFate>,
    /// Why the file could not be listed (unreadable, a notebook).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// One enlargement and what became of its value.
#[derive(Debug, serde::Serialize)]
pub struct EnlargementFate {
    pub location: Position,
    /// `expand`, `repeat`, ...; `call` for a value a helper in another file enlarged.
    pub op: String,
    /// `view` or `copy`.
    pub kind: &'static str,
    pub code: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shape: Option<String>,
    /// Each conversion of the enlarged value the analysis saw.
    pub conversions: Vec<ConversionFate>,
    /// When no conversion was seen: what happened to the value instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_conversion: Option<String>,
}

/// One conversion of an enlarged value.
#[derive(Debug, serde::Serialize)]
pub struct ConversionFate {
    pub location: Position,
    pub code: String,
    /// `reported` or `not-reported`.
    pub outcome: &'static str,
    /// The rule that reports it, or that would if it were enabled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<&'static str>,
    pub reason: String,
}
