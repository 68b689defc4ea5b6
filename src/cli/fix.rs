//! `check --fix`, `--fix-only` and `--diff`: one loop over the fix targets (stdin, or the files
//! of the tree that have a fix), printing the fixed text or its diff, or writing the files.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use super::args::CheckArgs;
use super::output::{EXIT_CLEAN, EXIT_FINDINGS, unified_diff};
use crate::app::{App, FixTarget, Fixed, Linted};
use crate::diagnostic::{Applicability, Level};
use crate::model::FileReport;

/// Where a fix run leaves the command.
pub(super) enum Fixes {
    /// The command is done (stdin, `--diff`, `--fix-only`): exit with this code.
    Done(i32),
    /// This many fixes were written; the report of what remains follows.
    Applied(usize),
}

pub(super) fn fix(
    app: &App,
    args: &CheckArgs,
    linted: &mut Linted,
    stdin_text: Option<String>,
) -> Fixes {
    let unsafe_fixes = if args.unsafe_fixes {
        Some(true)
    } else if args.no_unsafe_fixes {
        Some(false)
    } else {
        None
    };
    // `None` as the report index: stdin, whose fixed text (or diff) goes to stdout as it is.
    let targets: Vec<(Option<usize>, FixTarget)> = match &args.stdin_filename {
        Some(name) => stdin_text
            .map(|text| FixTarget {
                path: name.clone(),
                display: Arc::from(name.to_string_lossy().as_ref()),
                settings: app.settings_for(name),
                original: text.clone().into_bytes(),
                text,
                write: false,
            })
            .map(|t| (None, t))
            .into_iter()
            .collect(),
        None => app
            .fix_targets(linted, !args.diff)
            .into_iter()
            .map(|(i, t)| (Some(i), t))
            .collect(),
    };
    let summaries = linted.result.summaries.clone();
    let mut out = std::io::stdout().lock();
    let mut fixed = 0usize;
    let mut diff_count = 0usize;
    // Fixes `--diff` leaves out because they are unsafe (as `check` counts them).
    let mut hidden = 0usize;
    for (index, target) in targets {
        let Fixed { outcome, written } = app.fix(&target, &summaries, unsafe_fixes);
        for note in &outcome.notes {
            eprintln!("oomlint: {}: {note}", target.display);
        }
        if !unsafe_fixes.unwrap_or(target.settings.unsafe_fixes) {
            hidden += unsafe_fix_count(&outcome.report);
        }
        let Some(index) = index else {
            let printed = if args.diff {
                unified_diff(&target.display, &target.text, &outcome.text)
            } else {
                outcome.text.clone()
            };
            let _ = out.write_all(printed.as_bytes());
            let findings = if args.diff {
                if hidden > 0 {
                    eprintln!("{}", more_fixable(hidden));
                }
                outcome.applied > 0 || hidden > 0
            } else {
                let left = &outcome.report.diagnostics;
                let errors = left.iter().filter(|d| d.level == Level::Error).count();
                let failing = super::check::fails(
                    errors,
                    left.len() - errors,
                    app.settings_for(Path::new(".")).fail_on,
                    args.max_warnings,
                );
                (args.exit_non_zero_on_fix && outcome.applied > 0)
                    || (failing && !args.exit_zero && !args.fix_only)
            };
            return Fixes::Done(if findings { EXIT_FINDINGS } else { EXIT_CLEAN });
        };
        if outcome.applied == 0 {
            continue;
        }
        if args.diff {
            diff_count += outcome.applied;
            let diff = unified_diff(&target.display, &target.text, &outcome.text);
            let _ = out.write_all(diff.as_bytes());
            continue;
        }
        match written {
            Some(Ok(())) => {
                fixed += outcome.applied;
                App::replace_report(linted, index, outcome.report);
            }
            Some(Err(e)) => eprintln!("oomlint: error: {}: {e}", target.display),
            None => {}
        }
    }
    if args.diff {
        let _ = out.flush();
        let would = match diff_count {
            0 => "No fixes available".to_string(),
            1 => "Would fix 1 error".to_string(),
            n => format!("Would fix {n} errors"),
        };
        if hidden > 0 {
            eprintln!("{would} ({}).", more_fixable(hidden));
        } else {
            eprintln!("{would}.");
        }
        // Something to fix, safely or with `--unsafe-fixes`: as `check` would, exit 1.
        return Fixes::Done(if diff_count > 0 || hidden > 0 {
            EXIT_FINDINGS
        } else {
            EXIT_CLEAN
        });
    }
    if args.fix_only {
        let _ = out.flush();
        eprintln!("Fixed {fixed} error{}.", if fixed == 1 { "" } else { "s" });
        return Fixes::Done(if args.exit_non_zero_on_fix && fixed > 0 {
            EXIT_FINDINGS
        } else {
            EXIT_CLEAN
        });
    }
    Fixes::Applied(fixed)
}

/// Findings of a report whose fix is unsafe (left out unless unsafe fixes are on).
fn unsafe_fix_count(report: &FileReport) -> usize {
    report
        .diagnostics
        .iter()
        .filter(|d| {
            d.fix
                .as_ref()
                .is_some_and(|f| f.applicability == Applicability::Unsafe)
        })
        .count()
}

/// The wording `check` uses for fixes that need `--unsafe-fixes`.
fn more_fixable(n: usize) -> String {
    format!("{n} more fixable with `--fix --unsafe-fixes`")
}
