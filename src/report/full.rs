//! `full`: codespan-reporting frames with the chain as secondary labels, the suggested order and
//! the size.

use std::collections::HashMap;
use std::io::{self, Write};
use std::sync::Arc;

use codespan_reporting::diagnostic::{Diagnostic as Frame, Label as FrameLabel};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{self, Config, termcolor};

use crate::diagnostic::{Applicability, Diagnostic, Level, Measured};
use crate::fmt::{Bytes, ShapeStyle, first_tensor_arg};
use crate::model::LintResult;
use crate::rules::RuleKind;

pub fn write(out: &mut dyn Write, result: &LintResult, color: bool) -> io::Result<()> {
    let mut files: SimpleFiles<Arc<str>, Arc<str>> = SimpleFiles::new();
    let mut ids: HashMap<Arc<str>, usize> = HashMap::new();
    for (name, src) in &result.sources {
        ids.insert(name.clone(), files.add(name.clone(), src.clone()));
    }
    // A notebook's cells are shown as files of their own, `masks.ipynb:cell 5`, so frames count
    // rows within the cell (as ruff shows them).
    let mut cells = CellFiles::new();
    for report in &result.reports {
        let (Some(src), Some(map)) = (
            &report.source,
            report.index.as_ref().and_then(|i| i.cells.as_ref()),
        ) else {
            continue;
        };
        for span in &map.cells {
            let text = &src[span.range.start().to_usize()..span.range.end().to_usize()];
            let id = files.add(
                Arc::from(format!("{}:cell {}", report.display, span.number)),
                Arc::from(text),
            );
            cells.insert(
                (report.display.clone(), span.number),
                (id, span.range.start().to_usize()),
            );
        }
    }
    if color {
        render(&mut termcolor::Ansi::new(out), result, &files, &ids, &cells)
    } else {
        render(
            &mut termcolor::NoColor::new(out),
            result,
            &files,
            &ids,
            &cells,
        )
    }
}

/// (file, cell number) -> (its codespan file, the cell's offset in the module).
type CellFiles = HashMap<(Arc<str>, usize), (usize, usize)>;

/// The codespan file and byte range of a range of `file`, in its cell when it has one.
fn locate(
    file: &Arc<str>,
    cell: Option<usize>,
    range: std::ops::Range<usize>,
    ids: &HashMap<Arc<str>, usize>,
    cells: &CellFiles,
) -> Option<(usize, std::ops::Range<usize>)> {
    match cell {
        Some(n) => {
            let &(id, offset) = cells.get(&(file.clone(), n))?;
            Some((
                id,
                range.start.saturating_sub(offset)..range.end.saturating_sub(offset),
            ))
        }
        None => ids.get(file).map(|&id| (id, range)),
    }
}

fn render(
    writer: &mut dyn termcolor::WriteColor,
    result: &LintResult,
    files: &SimpleFiles<Arc<str>, Arc<str>>,
    ids: &HashMap<Arc<str>, usize>,
    cells: &CellFiles,
) -> io::Result<()> {
    let config = Config::default();
    for report in &result.reports {
        for d in &report.diagnostics {
            let primary = locate(
                &d.file,
                d.cell.map(|c| c.cell),
                d.range.start().to_usize()..d.range.end().to_usize(),
                ids,
                cells,
            );
            match primary {
                Some(primary)
                    if !d.primary_label.is_empty() || d.rule == &crate::rules::SYNTAX_ERROR =>
                {
                    // The fix note diffs the whole text its edits' ranges are in.
                    let source = ids
                        .get(&d.file)
                        .and_then(|&id| files.get(id).ok())
                        .map(|f| f.source().as_ref());
                    let frame = frame_for(d, primary, ids, cells, source);
                    if term::emit(writer, &config, files, &frame).is_err() {
                        writeln!(
                            writer,
                            "{}:{}: {} {}",
                            d.file,
                            d.place(),
                            d.rule.code,
                            d.message
                        )?;
                    }
                }
                _ => {
                    writeln!(
                        writer,
                        "{}[{}]: {}\n  --> {}:{}",
                        d.level.as_str(),
                        d.rule.code,
                        d.message,
                        d.file,
                        d.place()
                    )?;
                    for note in notes_of(d) {
                        writeln!(writer, "   = {note}")?;
                    }
                    writeln!(writer)?;
                }
            }
        }
    }
    Ok(())
}

fn frame_for(
    d: &Diagnostic,
    (file_id, range): (usize, std::ops::Range<usize>),
    ids: &HashMap<Arc<str>, usize>,
    cells: &CellFiles,
    source: Option<&str>,
) -> Frame<usize> {
    let mut labels = vec![FrameLabel::primary(file_id, range).with_message(&d.primary_label)];
    for label in &d.labels {
        let at = locate(
            &label.file,
            label.cell.map(|c| c.cell),
            label.range.start().to_usize()..label.range.end().to_usize(),
            ids,
            cells,
        );
        if let Some((id, range)) = at {
            labels.push(FrameLabel::secondary(id, range).with_message(&label.text));
        }
    }
    let mut notes = notes_of(d);
    if let Some(fix) = &d.fix
        && let Some(source) = source
    {
        // The fix goes before the rule line.
        let rule_line = notes.pop();
        notes.push(fix_note(fix, source));
        notes.extend(rule_line);
    }
    match d.level {
        Level::Error => Frame::error(),
        Level::Warning => Frame::warning(),
    }
    .with_code(d.rule.code)
    .with_message(&d.message)
    .with_labels(labels)
    .with_notes(notes)
}

/// The note lines under a frame: help, the rule's notes, the measured line, the rule name.
/// `fix (safe): ...` and the changed lines.
fn fix_note(fix: &crate::diagnostic::Fix, source: &str) -> String {
    let safety = match fix.applicability {
        Applicability::Safe => "safe",
        Applicability::Unsafe => "unsafe: run with --unsafe-fixes",
        Applicability::DisplayOnly => "suggestion only",
    };
    let edits: Vec<&crate::diagnostic::Edit> = fix.edits.iter().collect();
    let after = crate::fix::apply_edits(source, &edits);
    let mut text = format!("fix ({safety}): {}", fix.message);
    // Changed lines with one line of context, so a moved statement reads as a move.
    let diff = similar::TextDiff::from_lines(source, after.as_str());
    for group in diff.grouped_ops(1) {
        for op in group {
            for change in diff.iter_changes(&op) {
                let sign = match change.tag() {
                    similar::ChangeTag::Delete => "-",
                    similar::ChangeTag::Insert => "+",
                    similar::ChangeTag::Equal => " ",
                };
                text.push_str(&format!(
                    "\n  {sign} {}",
                    change.value().trim_end_matches(['\n', '\r'])
                ));
            }
        }
    }
    text
}

fn notes_of(d: &Diagnostic) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(help) = &d.help {
        notes.push(format!("help: {help}"));
    }
    notes.extend(d.notes.iter().cloned());
    if let Some(m) = &d.evidence
        && m.oom.is_none()
    {
        notes.push(profile_note(m));
    }
    if d.rule.kind != RuleKind::File {
        notes.push(format!(
            "rule: {} (oomlint rule {})",
            d.rule.name, d.rule.code
        ));
    }
    notes
}

/// `profile: aten::to wrote 192.0 MiB x2 at tiny_model.py:35 (input [2,24,2048,2048] long int,
/// strides [0,0,2048,1]); 61% of the peak; from PATH`.
fn profile_note(m: &Measured) -> String {
    let op = m.op.as_deref().unwrap_or("allocation");
    let calls = if m.calls > 1 {
        format!(" x{}", m.calls)
    } else {
        String::new()
    };
    let file = m
        .source
        .file
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(&m.source.file);
    let mut out = format!(
        "profile: {op} wrote {:.1}{calls} at {file}:{}",
        Bytes(m.bytes),
        m.source.line
    );
    if let Some(arg) = first_tensor_arg(
        &m.input_shapes,
        &m.input_dtypes,
        &m.input_strides,
        ShapeStyle::Compact,
    ) {
        out.push_str(&format!(" (input {arg})"));
    }
    if let Some(share) = m.peak_share {
        out.push_str(&format!("; {:.0}% of the peak", share * 100.0));
    }
    out.push_str(&format!("; from {} ({})", m.source.path, m.source.kind));
    out
}
