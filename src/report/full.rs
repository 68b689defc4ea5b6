//! `full`: codespan-reporting frames with the chain as secondary labels, the suggested order and
//! the size.

use std::collections::HashMap;
use std::io::{self, Write};
use std::sync::Arc;

use codespan_reporting::diagnostic::{Diagnostic as Frame, Label as FrameLabel};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{self, Config, termcolor};

use crate::diagnostic::{Applicability, Diagnostic};
use crate::linter::LintResult;

pub fn write(out: &mut dyn Write, result: &LintResult, color: bool) -> io::Result<()> {
    let mut files: SimpleFiles<Arc<str>, Arc<str>> = SimpleFiles::new();
    let mut ids: HashMap<Arc<str>, usize> = HashMap::new();
    for (name, src) in &result.sources {
        ids.insert(name.clone(), files.add(name.clone(), src.clone()));
    }
    if color {
        render(&mut termcolor::Ansi::new(out), result, &files, &ids)
    } else {
        render(&mut termcolor::NoColor::new(out), result, &files, &ids)
    }
}

fn render(
    writer: &mut dyn termcolor::WriteColor,
    result: &LintResult,
    files: &SimpleFiles<Arc<str>, Arc<str>>,
    ids: &HashMap<Arc<str>, usize>,
) -> io::Result<()> {
    let config = Config::default();
    for report in &result.reports {
        for d in &report.diagnostics {
            let id = ids.get(&d.file).copied();
            match id {
                Some(id) if !d.primary_label.is_empty() || d.code == "OOM001" => {
                    let source = files.get(id).ok().map(|f| f.source().as_ref());
                    let frame = frame_for(d, id, ids, source);
                    if term::emit(writer, &config, files, &frame).is_err() {
                        writeln!(
                            writer,
                            "{}:{}:{}: {} {}",
                            d.file, d.location.row, d.location.column, d.code, d.message
                        )?;
                    }
                }
                _ => {
                    writeln!(
                        writer,
                        "error[{}]: {}\n  --> {}:{}:{}\n",
                        d.code, d.message, d.file, d.location.row, d.location.column
                    )?;
                }
            }
        }
    }
    Ok(())
}

fn frame_for(
    d: &Diagnostic,
    file_id: usize,
    ids: &HashMap<Arc<str>, usize>,
    source: Option<&str>,
) -> Frame<usize> {
    let mut labels = vec![
        FrameLabel::primary(
            file_id,
            d.range.start().to_usize()..d.range.end().to_usize(),
        )
        .with_message(&d.primary_label),
    ];
    for label in &d.labels {
        if let Some(&id) = ids.get(&label.file) {
            labels.push(
                FrameLabel::secondary(
                    id,
                    label.range.start().to_usize()..label.range.end().to_usize(),
                )
                .with_message(&label.text),
            );
        }
    }
    let mut notes = Vec::new();
    if let Some(help) = &d.help {
        notes.push(format!("help: {help}"));
    }
    notes.extend(d.notes.iter().cloned());
    if let Some(fix) = &d.fix
        && let Some(source) = source
    {
        let safety = match fix.applicability {
            Applicability::Safe => "safe",
            Applicability::Unsafe => "unsafe: run with --unsafe-fixes",
            Applicability::DisplayOnly => "suggestion only",
        };
        let edits: Vec<&crate::diagnostic::Edit> = fix.edits.iter().collect();
        let after = crate::fix::apply_edits(source, &edits);
        let mut text = format!("fix ({safety}): {}", fix.message);
        for change in similar::TextDiff::from_lines(source, after.as_str()).iter_all_changes() {
            let sign = match change.tag() {
                similar::ChangeTag::Delete => "-",
                similar::ChangeTag::Insert => "+",
                similar::ChangeTag::Equal => continue,
            };
            text.push_str(&format!(
                "\n  {sign} {}",
                change.value().trim_end_matches(['\n', '\r'])
            ));
        }
        notes.push(text);
    }
    if d.code.starts_with("OOM1") {
        notes.push(format!("rule: {} (oomlint rule {})", d.name, d.code));
    }
    Frame::error()
        .with_code(d.code)
        .with_message(&d.message)
        .with_labels(labels)
        .with_notes(notes)
}
