//! What the commands send out: the report to `-o FILE` or stdout, a unified diff, one-line
//! errors and notes on stderr, and the exit codes.

use std::io::Write;
use std::path::Path;

use crate::evidence::Evidence;

/// Exit codes (DESIGN.md section 1).
pub const EXIT_CLEAN: i32 = 0;
pub const EXIT_FINDINGS: i32 = 1;
pub const EXIT_ERROR: i32 = 2;

/// Prints a one-line error; the exit code of a usage or setup error.
pub fn fail(message: &str) -> i32 {
    eprintln!("oomlint: error: {message}");
    EXIT_ERROR
}

/// Writes a rendered report to `file`, or to stdout when `None`.
pub fn write_output(file: Option<&Path>, rendered: &[u8]) -> Result<(), String> {
    match file {
        Some(path) => std::fs::write(path, rendered)
            .map_err(|e| format!("cannot write {}: {e}", path.display())),
        None => {
            let mut stdout = std::io::stdout().lock();
            match stdout.write_all(rendered).and_then(|_| stdout.flush()) {
                Ok(()) => Ok(()),
                // A closed pipe (`oomlint | head`) is not an error worth reporting.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                Err(e) => Err(format!("cannot write output: {e}")),
            }
        }
    }
}

/// A unified diff of one file, `--- a/PATH` / `+++ b/PATH`; of a notebook, one diff per changed
/// cell, `--- a/PATH:cell N` (as ruff shows them), not of its JSON.
pub fn unified_diff(display: &str, old: &str, new: &str) -> String {
    if crate::source::notebook::is_notebook(Path::new(display))
        && let Some(diff) = notebook_diff(display, old, new)
    {
        return diff;
    }
    text_diff(display, old, new)
}

fn notebook_diff(display: &str, old: &str, new: &str) -> Option<String> {
    use crate::source::notebook::Notebook;
    let (old, new) = (Notebook::parse(old).ok()?, Notebook::parse(new).ok()?);
    if old.cells.len() != new.cells.len() {
        return None;
    }
    let mut out = String::new();
    for (a, b) in old.cells.iter().zip(&new.cells) {
        if a.text != b.text {
            out.push_str(&text_diff(
                &format!("{display}:cell {}", a.number),
                &a.text,
                &b.text,
            ));
        }
    }
    Some(out)
}

fn text_diff(display: &str, old: &str, new: &str) -> String {
    // Patience anchors on unique lines (defs, classes), so a file with tens of thousands of fixes
    // diffs in well under a second, where plain Myers is O(lines x changes); the output is
    // deterministic either way (no timeout).
    similar::TextDiff::configure()
        .algorithm(similar::Algorithm::Patience)
        .diff_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{display}"), &format!("b/{display}"))
        .to_string()
}

/// What a reader left out or merged (caps on huge or hostile input), one line each on stderr.
pub fn print_evidence_notes(ev: &Evidence) {
    for note in &ev.notes {
        eprintln!("oomlint: note: {}: {note}", ev.path.display());
    }
}
