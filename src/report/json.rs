//! `json`: a list of objects with the keys of ruff's JSON output, plus `chain` and `evidence`.

use std::io::{self, Write};

use serde::Serialize;

use crate::diagnostic::{Fix, Label, Level, Measured};
use crate::model::LintResult;
use crate::rules::SizeFigure;
use crate::source::Position;

#[derive(Serialize)]
pub(super) struct JsonDiagnostic<'a> {
    code: &'a str,
    name: &'a str,
    /// `error` or `warning` (`rules::level`).
    level: Level,
    message: &'a str,
    filename: &'a str,
    /// In a notebook: the 1-based cell `location` is in (rows count within the cell).
    #[serde(skip_serializing_if = "Option::is_none")]
    cell: Option<usize>,
    location: Position,
    end_location: Position,
    fix: Option<&'a Fix>,
    noqa_row: Option<usize>,
    url: String,
    help: Option<&'a str>,
    notes: &'a [String],
    chain: Vec<JsonStep<'a>>,
    evidence: Option<&'a Measured>,
    /// The estimated bytes of a static finding, each dim's value and where it came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    size: Option<&'a SizeFigure>,
}

#[derive(Serialize)]
struct JsonStep<'a> {
    role: &'a str,
    filename: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    cell: Option<usize>,
    location: Position,
    end_location: Position,
    text: &'a str,
}

fn role_name(label: &Label) -> &'static str {
    match label.role {
        crate::analysis::StepRole::Enlarge => "enlarge",
        crate::analysis::StepRole::View => "view",
        crate::analysis::StepRole::Call => "call",
        crate::analysis::StepRole::Argument => "argument",
        crate::analysis::StepRole::Sink => "sink",
    }
}

pub fn write(out: &mut dyn Write, result: &LintResult) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &items(result)).map_err(io::Error::other)?;
    writeln!(out)
}

/// The objects of the `json` format (also one per line in `json-lines`).
pub(super) fn items(result: &LintResult) -> Vec<JsonDiagnostic<'_>> {
    let mut items = Vec::new();
    for report in &result.reports {
        for d in &report.diagnostics {
            let mut chain: Vec<JsonStep> = d
                .labels
                .iter()
                .map(|l| JsonStep {
                    role: role_name(l),
                    filename: &l.file,
                    cell: l.cell.map(|c| c.cell),
                    location: l.location,
                    end_location: l.end_location,
                    text: &l.text,
                })
                .collect();
            if !d.primary_label.is_empty() {
                chain.push(JsonStep {
                    role: "sink",
                    filename: &d.file,
                    cell: d.cell.map(|c| c.cell),
                    location: d.location,
                    end_location: d.end_location,
                    text: &d.primary_label,
                });
            }
            items.push(JsonDiagnostic {
                code: d.rule.code,
                name: d.rule.name,
                level: d.level,
                message: &d.message,
                filename: &d.file,
                cell: d.cell.map(|c| c.cell),
                location: d.location,
                end_location: d.end_location,
                fix: d.fix.as_ref(),
                noqa_row: d.noqa_row,
                url: d.rule.url(),
                help: d.help.as_deref(),
                notes: &d.notes,
                chain,
                evidence: d.evidence.as_deref(),
                size: d.size.as_deref(),
            });
        }
    }
    items
}
