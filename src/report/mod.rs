//! Emitters: one per output format. They print diagnostics; they never parse Python or read
//! evidence files.

mod concise;
mod full;
mod github;
mod gitlab;
mod json;
mod json_lines;
mod junit;
pub mod profile;
mod profile_html;
mod sarif;
pub mod sites;

use std::io::{self, Write};

use crate::config::OutputFormat;
use crate::diagnostic::{Applicability, Diagnostic, Level};
use crate::model::{FileReport, LintResult};
use crate::source::Position;

pub struct ReportOptions {
    pub format: OutputFormat,
    pub color: bool,
    pub statistics: bool,
}

/// Writes the diagnostics of `result` in the chosen format, then the summary line.
pub fn write_report(
    out: &mut dyn Write,
    result: &LintResult,
    options: &ReportOptions,
) -> io::Result<()> {
    if options.statistics {
        return write_statistics(out, result);
    }
    match options.format {
        OutputFormat::Json => json::write(out, result)?,
        OutputFormat::JsonLines => json_lines::write(out, result)?,
        OutputFormat::Sarif => sarif::write(out, result)?,
        OutputFormat::Github => github::write(out, result)?,
        OutputFormat::Gitlab => gitlab::write(out, result)?,
        OutputFormat::Junit => junit::write(out, result)?,
        OutputFormat::Concise => {
            concise::write(out, result)?;
            write_summary(out, result)?;
        }
        OutputFormat::Full => {
            full::write(out, result, options.color)?;
            write_summary(out, result)?;
        }
    }
    Ok(())
}

/// How many diagnostics of `level` the result holds.
pub fn count_level(result: &LintResult, level: Level) -> usize {
    result
        .reports
        .iter()
        .flat_map(|r| &r.diagnostics)
        .filter(|d| d.level == level)
        .count()
}

/// `1 error`, `5 warnings`.
fn counted(n: usize, level: Level) -> String {
    let word = level.as_str();
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

fn write_summary(out: &mut dyn Write, result: &LintResult) -> io::Result<()> {
    let errors = count_level(result, Level::Error);
    let warnings = count_level(result, Level::Warning);
    match (errors, warnings) {
        (0, 0) => return writeln!(out, "All checks passed!"),
        (e, 0) => writeln!(out, "Found {}.", counted(e, Level::Error))?,
        (0, w) => writeln!(out, "Found {}.", counted(w, Level::Warning))?,
        (e, w) => writeln!(
            out,
            "Found {} and {}.",
            counted(e, Level::Error),
            counted(w, Level::Warning)
        )?,
    }
    let fixes = || {
        result
            .reports
            .iter()
            .flat_map(|r| &r.diagnostics)
            .filter_map(|d| d.fix.as_ref())
    };
    let safe = fixes()
        .filter(|f| f.applicability == Applicability::Safe)
        .count();
    let unsafe_ = fixes()
        .filter(|f| f.applicability == Applicability::Unsafe)
        .count();
    if safe > 0 {
        writeln!(out, "[*] {safe} fixable with the `--fix` option.")?;
    }
    if unsafe_ > 0 {
        writeln!(out, "{unsafe_} more fixable with `--fix --unsafe-fixes`.")?;
    }
    Ok(())
}

/// Every diagnostic with the report of the file it was found in, in output order.
fn diagnostics(result: &LintResult) -> impl Iterator<Item = (&FileReport, &Diagnostic)> {
    result
        .reports
        .iter()
        .flat_map(|r| r.diagnostics.iter().map(move |d| (r, d)))
}

/// Where a diagnostic is in its file as stored on disk: the location itself, or in a notebook the
/// place in the `.ipynb` text that holds the cell's line (CI annotations point at file lines).
fn file_span(d: &Diagnostic) -> (Position, Position) {
    match d.cell {
        Some(c) => (c.file_location, c.file_end_location),
        None => (d.location, d.end_location),
    }
}

/// The same for a label of a chain.
fn label_file_span(l: &crate::diagnostic::Label) -> (Position, Position) {
    match l.cell {
        Some(c) => (c.file_location, c.file_end_location),
        None => (l.location, l.end_location),
    }
}

/// The text of the line a diagnostic is on (in its cell in a notebook), when the source is at hand.
fn sink_line<'a>(
    result: &'a LintResult,
    report: &'a FileReport,
    d: &Diagnostic,
) -> Option<&'a str> {
    let Some(cell) = d.cell else {
        return line_text(result, report, &d.file, d.location.row);
    };
    let source = report.source.as_deref()?;
    let map = report.index.as_ref()?.cells.as_ref()?;
    let text = map.text(source, cell.cell)?;
    let line = text.split('\n').nth(d.location.row.checked_sub(1)?)?;
    Some(line.strip_suffix('\r').unwrap_or(line))
}

/// The text of the 1-based `row` of `file`, when its source is at hand.
fn line_text<'a>(
    result: &'a LintResult,
    report: &'a FileReport,
    file: &str,
    row: usize,
) -> Option<&'a str> {
    let source = match &report.source {
        Some(src) if &*report.display == file => src,
        _ => result.sources.get(file)?,
    };
    let line = source.split('\n').nth(row.checked_sub(1)?)?;
    Some(line.strip_suffix('\r').unwrap_or(line))
}

/// A display path with forward slashes (the CI formats want repository-relative paths).
fn portable_path(path: &str) -> String {
    path.replace('\\', "/")
}

/// `--statistics`: one line per rule and level (`count, code, name, level`), errors first, then
/// the most frequent.
fn write_statistics(out: &mut dyn Write, result: &LintResult) -> io::Result<()> {
    let mut counts: Vec<(Level, &str, &str, usize)> = Vec::new();
    for d in result.reports.iter().flat_map(|r| &r.diagnostics) {
        match counts
            .iter_mut()
            .find(|(l, c, _, _)| *l == d.level && *c == d.rule.code)
        {
            Some(entry) => entry.3 += 1,
            None => counts.push((d.level, d.rule.code, d.rule.name, 1)),
        }
    }
    counts.sort_by(|a, b| a.0.cmp(&b.0).then(b.3.cmp(&a.3)).then(a.1.cmp(b.1)));
    for (level, code, name, n) in &counts {
        writeln!(out, "{n:>5}\t{code}\t{name}\t{}", level.as_str())?;
    }
    write_summary(out, result)
}
