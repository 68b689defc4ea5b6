//! Chain labels: a step in this file gets its position at once; one in another file (an
//! interprocedural chain) when that file's source is loaded for the report.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::analysis::Step;
use crate::diagnostic::Label;
use crate::discovery::FileJob;
use crate::model::{FileReport, LintResult, SourceMap};
use crate::source::notebook::{self, Notebook};
use crate::source::{self, Lines, Position};

pub(super) fn make_label(
    step: &Step,
    text: &str,
    display: &Arc<str>,
    source: &str,
    lines: &Lines,
) -> Label {
    match &step.file {
        None => Label {
            role: step.role,
            file: display.clone(),
            range: step.range,
            location: lines.position(source, step.range.start()),
            end_location: lines.position(source, step.range.end()),
            text: text.to_string(),
            cell: None,
        },
        Some(file) => {
            // A step in another file: positions are computed when its source is loaded.
            Label {
                role: step.role,
                file: file.clone(),
                range: step.range,
                location: Position { row: 0, column: 0 },
                end_location: Position { row: 0, column: 0 },
                text: text.to_string(),
                cell: None,
            }
        }
    }
}

/// Loads the sources of other files that labels point into and fills in their positions.
pub(super) fn collect_sources(reports: &[FileReport], jobs: &[&FileJob]) -> SourceMap {
    let mut sources: SourceMap = HashMap::new();
    for report in reports {
        if let Some(src) = &report.source {
            sources.insert(report.display.clone(), src.clone());
        }
    }
    let by_display: HashMap<&str, &Path> = jobs
        .iter()
        .map(|j| (&*j.display, j.path.as_path()))
        .collect();
    // One command line, one limit: every job's settings carry the same `--max-file-size`.
    let limit = jobs
        .first()
        .map_or(source::DEFAULT_MAX_FILE_SIZE, |j| j.settings.max_file_size);
    let mut wanted: Vec<Arc<str>> = Vec::new();
    for report in reports {
        for d in &report.diagnostics {
            for label in &d.labels {
                if !sources.contains_key(&label.file) && !wanted.contains(&label.file) {
                    wanted.push(label.file.clone());
                }
            }
        }
    }
    for file in wanted {
        let path = by_display
            .get(&*file)
            .map(|p| p.to_path_buf())
            .unwrap_or_else(|| PathBuf::from(&*file));
        if let Ok(src) = source::read_source(&path, limit) {
            // A helper in a notebook: its ranges are in the module of its cells.
            let text = if notebook::is_notebook(&path) {
                match Notebook::parse(&src.text) {
                    Ok(nb) => nb.source,
                    Err(_) => continue,
                }
            } else {
                src.text
            };
            sources.insert(file, Arc::from(text));
        }
    }
    sources
}

/// Fills in positions of labels that point into other files (after [`collect_sources`]).
pub(crate) fn resolve_label_positions(result: &mut LintResult) {
    let mut line_cache: HashMap<Arc<str>, Lines> = HashMap::new();
    for report in &mut result.reports {
        for d in &mut report.diagnostics {
            for label in &mut d.labels {
                if label.location.row != 0 {
                    continue;
                }
                let Some(src) = result.sources.get(&label.file) else {
                    continue;
                };
                let lines = line_cache
                    .entry(label.file.clone())
                    .or_insert_with(|| Lines::new(src));
                label.location = lines.position(src, label.range.start());
                label.end_location = lines.position(src, label.range.end());
            }
        }
    }
}
