//! Fixing one text: rounds of applicable fixes, each re-parsed and re-linted, and a notebook's
//! cells written back.

use super::*;

/// How many fix rounds run before giving up on a file whose fixes keep producing new ones.
const MAX_FIX_ROUNDS: usize = 10;

/// The result of fixing one text.
pub(crate) struct FixOutcome {
    pub text: String,
    pub applied: usize,
    /// The diagnostics left after the fixes.
    pub report: FileReport,
    /// Why some fixes were not applied (code that would not parse, no convergence, ...).
    pub notes: Vec<String>,
}

/// Applies the applicable fixes to `text` until none is left (bounded), re-linting after each
/// round. A fix that would make the code fail to parse is dropped.
pub(crate) fn fix_text(
    text: &str,
    path: &Path,
    module: &ModuleInfo,
    settings: &Settings,
    summaries: &SummaryTable,
    allow_unsafe: bool,
) -> FixOutcome {
    if notebook::is_notebook(path) {
        return fix_notebook(text, path, module, settings, summaries, allow_unsafe);
    }
    let is_stub = path.extension().is_some_and(|e| e == "pyi");
    let (mut report, _) = lint_text(text, path, module, settings, summaries, true);
    let mut current = text.to_string();
    let mut applied = 0;
    let mut notes = Vec::new();
    if refuse_syntax_errors(&report, "the file has syntax errors", &mut notes) {
        return FixOutcome {
            text: current,
            applied,
            report,
            notes,
        };
    }
    let mut converged = false;
    for _ in 0..MAX_FIX_ROUNDS {
        let fixes = applicable_fixes(&report, allow_unsafe);
        if fixes.is_empty() {
            converged = true;
            break;
        }
        let Some((candidate, n)) = apply_parsing(&current, &fixes, is_stub, &mut notes) else {
            break;
        };
        if n == 0 || candidate == current {
            converged = true;
            break;
        }
        current = candidate;
        applied += n;
        report = lint_text(&current, path, module, settings, summaries, true).0;
    }
    if !converged {
        notes.push(format!(
            "fixes did not converge after {MAX_FIX_ROUNDS} rounds; stopped"
        ));
    }
    FixOutcome {
        text: current,
        applied,
        report,
        notes,
    }
}

/// Is there a syntax error in `report`? Then nothing is fixed (a note says why when there was
/// a fix to apply).
fn refuse_syntax_errors(report: &FileReport, why: &str, notes: &mut Vec<String>) -> bool {
    let broken = report
        .diagnostics
        .iter()
        .any(|d| d.rule.code == rules::SYNTAX_ERROR.code);
    if broken && report.diagnostics.iter().any(|d| d.fix.is_some()) {
        notes.push(format!("not fixed: {why}"));
    }
    broken
}

/// The fixes of `report` that may be applied: safe ones, and unsafe ones when allowed.
fn applicable_fixes(report: &FileReport, allow_unsafe: bool) -> Vec<&Fix> {
    report
        .diagnostics
        .iter()
        .filter_map(|d| d.fix.as_ref())
        .filter(|f| {
            f.applicability == Applicability::Safe
                || (allow_unsafe && f.applicability == Applicability::Unsafe)
        })
        .collect()
}

/// `text` with `fixes` applied, and how many were; when the result would not parse, the fixes
/// that parse on their own are kept (a note for each dropped one). `None`: nothing that parses.
fn apply_parsing(
    text: &str,
    fixes: &[&Fix],
    is_stub: bool,
    notes: &mut Vec<String>,
) -> Option<(String, usize)> {
    let parses = |t: &str| source::parse_module(t, is_stub).syntax_errors.is_empty();
    let (candidate, n) = crate::fix::apply_fixes(text, fixes);
    if parses(&candidate) {
        return Some((candidate, n));
    }
    // Find the culprits one by one; keep the fixes that parse on their own.
    let mut good = Vec::new();
    for fix in fixes {
        if parses(&crate::fix::apply_fixes(text, &[fix]).0) {
            good.push(*fix);
        } else {
            notes.push(format!(
                "dropped a fix that would not parse: {}",
                fix.message
            ));
        }
    }
    let (candidate, n) = crate::fix::apply_fixes(text, &good);
    (n > 0 && parses(&candidate)).then_some((candidate, n))
}

/// [`fix_text`] for a notebook: fixes are applied cell by cell (a fix never spans cells), each
/// fixed cell must parse on its own, and the file is written back with only the `source` of the
/// changed cells rewritten.
fn fix_notebook(
    raw: &str,
    path: &Path,
    module: &ModuleInfo,
    settings: &Settings,
    summaries: &SummaryTable,
    allow_unsafe: bool,
) -> FixOutcome {
    let (mut report, _) = lint_text(raw, path, module, settings, summaries, true);
    let unchanged = |report, notes| FixOutcome {
        text: raw.to_string(),
        applied: 0,
        report,
        notes,
    };
    let Ok(nb) = Notebook::parse(raw) else {
        return unchanged(report, Vec::new());
    };
    let mut notes = Vec::new();
    if refuse_syntax_errors(&report, "a cell has syntax errors", &mut notes) {
        return unchanged(report, notes);
    }
    let numbers: Vec<usize> = nb.cells.iter().map(|c| c.number).collect();
    let mut cells: Vec<String> = nb.cell_sources().into_iter().map(String::from).collect();
    let nowhere = |_: TextSize| Position { row: 1, column: 1 };
    let mut applied = 0;
    let mut converged = false;
    for _ in 0..MAX_FIX_ROUNDS {
        let fixes = applicable_fixes(&report, allow_unsafe);
        if fixes.is_empty() {
            converged = true;
            break;
        }
        let numbered: Vec<(usize, &str)> = numbers
            .iter()
            .copied()
            .zip(cells.iter().map(String::as_str))
            .collect();
        let (_, map) = CellMap::join(&numbered);
        let mut next = cells.clone();
        let mut n = 0;
        for (i, span) in map.cells.iter().enumerate() {
            let inside = |f: &&&Fix| {
                !f.edits.is_empty()
                    && f.edits.iter().all(|e| {
                        span.range.start() <= e.range.start() && e.range.end() <= span.range.end()
                    })
            };
            let shifted: Vec<Fix> = fixes
                .iter()
                .filter(inside)
                .map(|f| {
                    let mut f = (*f).clone();
                    for e in &mut f.edits {
                        e.range -= span.range.start();
                    }
                    f
                })
                .collect();
            if shifted.is_empty() {
                continue;
            }
            let all: Vec<&Fix> = shifted.iter().collect();
            let Some((candidate, k)) = apply_parsing(&cells[i], &all, false, &mut notes) else {
                continue;
            };
            next[i] = candidate;
            n += k;
        }
        if n == 0 || next == cells {
            converged = true;
            break;
        }
        cells = next;
        applied += n;
        let numbered: Vec<(usize, &str)> = numbers
            .iter()
            .copied()
            .zip(cells.iter().map(String::as_str))
            .collect();
        let (module_text, map) = CellMap::join(&numbered);
        (report, _) = lint_cells(
            &module_text,
            &map,
            path,
            module,
            settings,
            summaries,
            true,
            &nowhere,
        );
    }
    if !converged {
        notes.push(format!(
            "fixes did not converge after {MAX_FIX_ROUNDS} rounds; stopped"
        ));
    }
    if applied == 0 {
        return unchanged(report, notes);
    }
    match nb.write_back(&cells) {
        Ok(text) => {
            // The report again from the written file: positions in it are the file's own.
            let (report, _) = lint_text(&text, path, module, settings, summaries, true);
            FixOutcome {
                text,
                applied,
                report,
                notes,
            }
        }
        Err(e) => {
            notes.push(format!("not fixed: {e}"));
            let (report, _) = lint_text(raw, path, module, settings, summaries, true);
            unchanged(report, notes)
        }
    }
}
