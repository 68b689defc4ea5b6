//! A finding as the user sees it: code, message, where, the chain that leads to it.

use std::sync::Arc;

use serde::Serialize;

use crate::analysis::StepRole;
use crate::rules::{RuleInfo, SizeFigure};
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
    /// In a notebook: the cell (`location` is then within the cell).
    #[serde(skip)]
    pub cell: Option<CellSpot>,
}

/// Where a position of a notebook's module is: its cell (`location`s are then rows and columns
/// within the cell) and the same place in the `.ipynb` file itself, where CI annotations point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct CellSpot {
    /// The 1-based cell number among all cells, as Jupyter and ruff count them.
    pub cell: usize,
    pub file_location: Position,
    pub file_end_location: Position,
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
    /// In a notebook: the cell the edit is in (its `location` is within the cell).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cell: Option<usize>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Fix {
    pub applicability: Applicability,
    pub message: String,
    pub edits: Vec<Edit>,
}

/// How much a finding asks of the user (as ESLint and clippy have it): an error fails `check`;
/// a warning fails it only with `--max-warnings N` or `fail-on = "warning"`. What makes an error
/// is decided in one place, `rules::level`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Error,
    Warning,
}

impl Level {
    /// `error` / `warning`, as every output format prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
        }
    }
}

/// One reported problem.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    /// The rule that reported it; its code, name, kind and document come from there.
    pub rule: &'static RuleInfo,
    /// Error or warning (`rules::level`).
    pub level: Level,
    /// The pattern is certain from facts (`rules::level::pattern_is_certain`): kept so that
    /// evidence attached later (measured bytes, a stated basis) can raise a warning to an error.
    pub pattern_certain: bool,
    /// The file is a test file (`test-files`): its findings stay warnings.
    pub in_test_file: bool,
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
    /// The row a `# noqa` comment goes on (within the cell in a notebook).
    pub noqa_row: Option<usize>,
    /// In a notebook: the cell of `location` and `end_location`, and where they are in the file.
    pub cell: Option<CellSpot>,
    /// First and last row of the reported statement (suppression comments may sit on any).
    pub stmt_rows: Option<(usize, usize)>,
    /// What a profile or OOM log measured at this line (`--profile`, `--oom-log`).
    pub evidence: Option<Box<Measured>>,
    /// The estimated size of a static finding's full-size result.
    pub size: Option<Box<SizeFigure>>,
}

/// Where a measurement came from.
#[derive(Clone, Debug, Serialize)]
pub struct MeasuredSource {
    /// The evidence file or folder, as given.
    pub path: String,
    /// `chrome_trace`, `cuda_snapshot`, `ascend_folder` or `oom_log`.
    pub kind: String,
    /// The frame as the evidence names it (file as written, line).
    pub file: String,
    pub line: u32,
    /// How the line was placed in the current source: `exact` (printed text matches), `moved`
    /// (same text nearby), `unchecked` (no text to compare), `in_function` (a function-level
    /// frame matched to this call), `unlocated` (no linted file matches).
    pub line_match: String,
}

/// Figures of an out-of-memory failure (OOM203).
#[derive(Clone, Debug, Default, Serialize)]
pub struct OomFigures {
    pub device: String,
    pub requested_bytes: Option<u64>,
    pub capacity_bytes: Option<u64>,
    pub allocated_bytes: Option<u64>,
    pub reserved_bytes: Option<u64>,
    pub free_bytes: Option<u64>,
    /// True when the sizes come from rounded text (`6.10 GiB`).
    pub approximate: bool,
    pub message: String,
}

/// Measured memory attached to a finding: the largest allocation group at its line.
#[derive(Clone, Debug, Serialize)]
pub struct Measured {
    /// Bytes of one allocation.
    pub bytes: u64,
    /// How many identical allocations the evidence recorded at this line.
    pub calls: u64,
    /// `bytes x calls`.
    pub total_bytes: u64,
    /// Bytes of these allocations live at the moment of the evidence's peak (0 when the evidence
    /// has no times): what the line holds when memory runs out, the ranking measure.
    pub live_at_peak_bytes: u64,
    /// `bytes` over the evidence's peak allocated memory, when known.
    pub peak_share: Option<f64>,
    pub op: Option<String>,
    pub op_chain: Vec<String>,
    pub input_shapes: Vec<Vec<i64>>,
    pub input_strides: Vec<Vec<i64>>,
    pub input_dtypes: Vec<String>,
    /// The op copied a broadcast view (an input dim of size > 1 with stride 0).
    pub materialized_broadcast: bool,
    pub source: MeasuredSource,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oom: Option<OomFigures>,
}

impl Measured {
    /// The sort key with evidence: bytes live at the peak, then total bytes, then bytes per
    /// call (the same order as the hot list of `oomlint profile`).
    pub fn rank(&self) -> (u64, u64, u64) {
        (self.live_at_peak_bytes, self.total_bytes, self.bytes)
    }
}

impl Diagnostic {
    /// Sort key: file, then cell (notebooks), then position, then code.
    pub fn sort_key(&self) -> (&str, usize, Position, &'static str) {
        (
            &self.file,
            self.cell.map_or(0, |c| c.cell),
            self.location,
            self.rule.code,
        )
    }

    /// `row:column`, or `cell N:row:column` in a notebook: what follows `path:` in the text
    /// formats (as ruff prints it).
    pub fn place(&self) -> String {
        place(self.cell.map(|c| c.cell), self.location)
    }
}

/// `row:column`, prefixed with `cell N:` in a notebook.
pub fn place(cell: Option<usize>, at: Position) -> String {
    match cell {
        Some(n) => format!("cell {n}:{}:{}", at.row, at.column),
        None => format!("{}:{}", at.row, at.column),
    }
}
