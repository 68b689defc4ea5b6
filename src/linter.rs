//! The pipeline for a set of files: read, parse, analyze (two passes: function summaries of the
//! whole tree first, then each file with them), apply the rules and suppressions.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

use crate::analysis::{self, FileAnalysis, ModuleInfo, Step, SummaryTable};
use crate::config::Settings;
use crate::diagnostic::{Applicability, Diagnostic, Fix, Label};
use crate::discovery::{FileJob, PathProblem};
use crate::model::{FileIndex, FileReport, LintResult, SourceMap, file_diagnostic};
use crate::rules::{self, RuleContext};
use crate::source::{self, Lines, Position, ReadError};

/// Stack size of the worker threads: deeply nested code (a 200,000-term expression) is parsed and
/// walked recursively, and dropping its tree recurses too.
pub(crate) const WORKER_STACK: usize = 512 * 1024 * 1024;

/// A pool whose workers have a large stack (`None` if the OS refuses big stacks: the caller then
/// runs on its own thread, with the global pool's default stacks).
pub(crate) fn worker_pool(threads: Option<usize>) -> Option<rayon::ThreadPool> {
    let mut builder = rayon::ThreadPoolBuilder::new().stack_size(WORKER_STACK);
    if let Some(n) = threads {
        builder = builder.num_threads(n.max(1));
    }
    builder.build().ok()
}

/// Lints files (call inside a [`worker_pool`]).
pub(crate) fn lint_files(jobs: &[FileJob], problems: Vec<PathProblem>) -> LintResult {
    let init_cache: Mutex<HashMap<PathBuf, bool>> = Mutex::new(HashMap::new());
    let modules: Vec<ModuleInfo> = jobs
        .iter()
        .map(|job| module_info(&job.path, job.display.clone(), &init_cache))
        .collect();
    // Pass A: every file with no knowledge of other files; it also yields the functions that
    // return enlarged values.
    let empty = SummaryTable::default();
    let outcomes: Vec<(FileReport, Vec<analysis::FunctionSummary>)> = jobs
        .par_iter()
        .zip(modules.par_iter())
        .map(|(job, module)| lint_job(job, module, &empty, false))
        .collect();
    let mut reports = Vec::with_capacity(outcomes.len());
    let mut table = SummaryTable::default();
    let mut new_names: Vec<CallNeedle> = Vec::new();
    for (report, summaries) in outcomes {
        reports.push(report);
        add_summaries(&mut table, summaries, &mut new_names);
    }
    // Pass B (bounded rounds): files that call a summarized function are linted again with the
    // summaries, which may in turn find helpers that return a helper's result.
    for _ in 0..3 {
        if new_names.is_empty() {
            break;
        }
        let Ok(matcher) = aho_corasick::AhoCorasick::new(new_names.iter().map(|n| &n.text)) else {
            break;
        };
        let needles = std::mem::take(&mut new_names);
        let dirty: Vec<usize> = (0..jobs.len())
            .into_par_iter()
            .filter(|&i| {
                source::read_source(&jobs[i].path, jobs[i].settings.max_file_size)
                    .is_ok_and(|s| mentions_call(&s.text, &matcher, &needles))
            })
            .collect();
        let redone: Vec<(usize, (FileReport, Vec<analysis::FunctionSummary>))> = dirty
            .par_iter()
            .map(|&i| (i, lint_job(&jobs[i], &modules[i], &table, true)))
            .collect();
        for (i, (report, summaries)) in redone {
            reports[i] = report;
            add_summaries(&mut table, summaries, &mut new_names);
        }
    }
    for problem in problems {
        reports.push(FileReport {
            display: problem.display.clone(),
            source: None,
            index: None,
            diagnostics: vec![file_diagnostic(
                &rules::UNREADABLE_FILE,
                problem.display,
                problem.message,
                Position { row: 1, column: 1 },
            )],
        });
    }
    reports.sort_by(|a, b| a.display.cmp(&b.display));
    let sources = collect_sources(&reports, jobs);
    LintResult {
        reports,
        sources,
        summaries: Arc::new(table),
    }
}

/// The module name of a file, caching which folders are packages.
pub(crate) fn module_info(
    path: &Path,
    display: Arc<str>,
    cache: &Mutex<HashMap<PathBuf, bool>>,
) -> ModuleInfo {
    let has_init = |dir: &Path| -> bool {
        if let Ok(c) = cache.lock()
            && let Some(v) = c.get(dir)
        {
            return *v;
        }
        let v = dir.join("__init__.py").is_file() || dir.join("__init__.pyi").is_file();
        if let Ok(mut c) = cache.lock() {
            c.insert(dir.to_path_buf(), v);
        }
        v
    };
    let abs = crate::config::absolute(path);
    ModuleInfo::for_path(&abs, display, &has_init)
}

/// A text to look for in files that may call a newly summarized function: `.name(` for a
/// method, `name` (not in its own `def`) for a function.
struct CallNeedle {
    text: String,
    is_method: bool,
}

fn add_summaries(
    table: &mut SummaryTable,
    summaries: Vec<analysis::FunctionSummary>,
    needles: &mut Vec<CallNeedle>,
) {
    for summary in summaries {
        let short = summary
            .qualname
            .rsplit('.')
            .next()
            .unwrap_or(&summary.qualname);
        let text = if summary.is_method {
            format!(".{short}(")
        } else {
            short.to_string()
        };
        let is_method = summary.is_method;
        if table.insert(summary) && !needles.iter().any(|n| n.text == text) {
            needles.push(CallNeedle { text, is_method });
        }
    }
}

/// Does `text` mention one of the needles other than in a `def` line?
fn mentions_call(text: &str, matcher: &aho_corasick::AhoCorasick, needles: &[CallNeedle]) -> bool {
    matcher.find_iter(text).any(|m| {
        let needle = &needles[m.pattern().as_usize()];
        needle.is_method || !text[..m.start()].ends_with("def ")
    })
}

/// Reads and lints one file; `force` analyzes it even without an enlarger in its text.
fn lint_job(
    job: &FileJob,
    module: &ModuleInfo,
    summaries: &SummaryTable,
    force: bool,
) -> (FileReport, Vec<analysis::FunctionSummary>) {
    match source::read_source(&job.path, job.settings.max_file_size) {
        Ok(src) => {
            let linted = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                lint_text(
                    &src.text,
                    &job.path,
                    module,
                    &job.settings,
                    summaries,
                    force,
                )
            }));
            match linted {
                Ok(result) => result,
                Err(_) => (
                    unreadable(
                        job.display.clone(),
                        &job.settings,
                        &job.path,
                        "internal error while linting this file (reported above); other files are unaffected".to_string(),
                        Position { row: 1, column: 1 },
                    ),
                    Vec::new(),
                ),
            }
        }
        Err(err) => (
            unreadable(
                job.display.clone(),
                &job.settings,
                &job.path,
                err.to_string(),
                // A bad byte is pointed at; other read errors are about the whole file.
                match err {
                    ReadError::NotUtf8 { row, column, .. } => Position { row, column },
                    _ => Position { row: 1, column: 1 },
                },
            ),
            Vec::new(),
        ),
    }
}

/// Lints one text. `path` is used for per-file settings and module naming.
pub(crate) fn lint_text(
    text: &str,
    path: &Path,
    module: &ModuleInfo,
    settings: &Settings,
    summaries: &SummaryTable,
    force: bool,
) -> (FileReport, Vec<analysis::FunctionSummary>) {
    let display = module.display_path.clone();
    let is_stub = path.extension().is_some_and(|e| e == "pyi");
    let parsed = source::parse_module(text, is_stub);
    let index = Arc::new(FileIndex::new(text, &parsed));
    let lines = &index.lines;
    let mut diagnostics = Vec::new();

    for error in &parsed.syntax_errors {
        if settings.is_enabled(rules::SYNTAX_ERROR.code, path) {
            let mut d = file_diagnostic(
                &rules::SYNTAX_ERROR,
                display.clone(),
                format!("syntax error: {}", error.message),
                lines.position(text, error.range.start()),
            );
            d.range = error.range;
            d.end_location = lines.position(text, error.range.end());
            diagnostics.push(d);
        }
    }

    let mut found_summaries = Vec::new();
    if force || analysis::mentions_enlarger(text) {
        let FileAnalysis {
            sites,
            summaries: found,
        } = analysis::analyze_module(&parsed.body, text, module, summaries, true);
        found_summaries = found;
        let ctx = RuleContext {
            dims: &settings.dims,
            min_static_bytes: settings.min_static_bytes,
        };
        for site in &rules::select_sites(sites) {
            let Some(finding) = rules::check_site(site, &ctx) else {
                continue;
            };
            if !settings.is_enabled(finding.rule.code, path) {
                continue;
            }
            let sink = &site.sink_step;
            let labels = finding
                .labels
                .iter()
                .filter(|(step, _)| step.file.is_none() || step.file.as_deref() != Some(&*display))
                .map(|(step, label)| make_label(step, label, &display, text, lines))
                .collect();
            let location = lines.position(text, sink.range.start());
            let end_location = lines.position(text, sink.range.end());
            let stmt = site.stmt_range;
            let stmt_rows = if stmt.is_empty() {
                (location.row, end_location.row)
            } else {
                (
                    lines.row(stmt.start()).min(location.row),
                    lines.row(stmt.end()).max(end_location.row),
                )
            };
            diagnostics.push(Diagnostic {
                rule: finding.rule,
                message: finding.message,
                file: display.clone(),
                range: sink.range,
                location,
                end_location,
                primary_label: finding.primary_label,
                labels,
                help: finding.help,
                notes: finding.notes,
                fix: if settings.is_fixable(finding.rule.code) {
                    finding
                        .rule
                        .fix
                        .and_then(|build| build(site, text))
                        .map(|mut fix| {
                            for e in &mut fix.edits {
                                e.location = lines.position(text, e.range.start());
                                e.end_location = lines.position(text, e.range.end());
                            }
                            fix
                        })
                } else {
                    None
                },
                noqa_row: Some(location.row),
                stmt_rows: Some(stmt_rows),
                evidence: None,
                size: finding.size.map(Box::new),
            });
        }
    }

    if !diagnostics.is_empty() {
        let suppressions = &index.suppressions;
        diagnostics.retain(|d| {
            let (first, last) = d.stmt_rows.unwrap_or((d.location.row, d.end_location.row));
            d.rule.code == rules::SYNTAX_ERROR.code
                || !suppressions.is_suppressed(d.rule.code, first, last)
        });
    }
    diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    let source = (!diagnostics.is_empty()).then(|| Arc::from(text));
    (
        FileReport {
            display,
            source,
            diagnostics,
            index: Some(index),
        },
        found_summaries,
    )
}

fn make_label(step: &Step, text: &str, display: &Arc<str>, source: &str, lines: &Lines) -> Label {
    match &step.file {
        None => Label {
            role: step.role,
            file: display.clone(),
            range: step.range,
            location: lines.position(source, step.range.start()),
            end_location: lines.position(source, step.range.end()),
            text: text.to_string(),
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
            }
        }
    }
}

/// Loads the sources of other files that labels point into and fills in their positions.
fn collect_sources(reports: &[FileReport], jobs: &[FileJob]) -> SourceMap {
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
            sources.insert(file, Arc::from(src.text));
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

fn unreadable(
    display: Arc<str>,
    settings: &Settings,
    path: &Path,
    message: String,
    at: Position,
) -> FileReport {
    let diagnostics = if settings.is_enabled(rules::UNREADABLE_FILE.code, path) {
        vec![file_diagnostic(
            &rules::UNREADABLE_FILE,
            display.clone(),
            message,
            at,
        )]
    } else {
        Vec::new()
    };
    FileReport {
        display,
        source: None,
        diagnostics,
        index: None,
    }
}

/// Lints source text given directly (stdin, editors, tests), with no other files for summaries.
pub(crate) fn lint_source(
    text: &str,
    path: &Path,
    display: Arc<str>,
    settings: &Settings,
) -> LintResult {
    let init_cache = Mutex::new(HashMap::new());
    let module = module_info(path, display, &init_cache);
    let (report, _) = lint_text(
        text,
        path,
        &module,
        settings,
        &SummaryTable::default(),
        false,
    );
    let mut sources = SourceMap::new();
    if let Some(src) = &report.source {
        sources.insert(report.display.clone(), src.clone());
    }
    LintResult {
        reports: vec![report],
        sources,
        summaries: Arc::new(SummaryTable::default()),
    }
}

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
    let is_stub = path.extension().is_some_and(|e| e == "pyi");
    let (mut report, _) = lint_text(text, path, module, settings, summaries, true);
    let mut current = text.to_string();
    let mut applied = 0;
    let mut notes = Vec::new();
    if report
        .diagnostics
        .iter()
        .any(|d| d.rule.code == rules::SYNTAX_ERROR.code)
    {
        if report.diagnostics.iter().any(|d| d.fix.is_some()) {
            notes.push("not fixed: the file has syntax errors".to_string());
        }
        return FixOutcome {
            text: current,
            applied,
            report,
            notes,
        };
    }
    let applicable = |f: &&Fix| {
        f.applicability == Applicability::Safe
            || (allow_unsafe && f.applicability == Applicability::Unsafe)
    };
    let mut converged = false;
    for _ in 0..MAX_FIX_ROUNDS {
        let fixes: Vec<&Fix> = report
            .diagnostics
            .iter()
            .filter_map(|d| d.fix.as_ref())
            .filter(applicable)
            .collect();
        if fixes.is_empty() {
            converged = true;
            break;
        }
        let (mut candidate, mut n) = crate::fix::apply_fixes(&current, &fixes);
        if !source::parse_module(&candidate, is_stub)
            .syntax_errors
            .is_empty()
        {
            // Find the culprits one by one; keep the fixes that parse on their own.
            let mut good = Vec::new();
            for fix in &fixes {
                let (one, _) = crate::fix::apply_fixes(&current, &[fix]);
                if source::parse_module(&one, is_stub).syntax_errors.is_empty() {
                    good.push(*fix);
                } else {
                    notes.push(format!(
                        "dropped a fix that would not parse: {}",
                        fix.message
                    ));
                }
            }
            (candidate, n) = crate::fix::apply_fixes(&current, &good);
            if n == 0
                || !source::parse_module(&candidate, is_stub)
                    .syntax_errors
                    .is_empty()
            {
                break;
            }
        }
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

/// The old path of the fix round-trip check, kept until `tests/` moves to `testing`.
#[cfg(any(test, feature = "fuzzing"))]
#[doc(hidden)]
pub use crate::testing::check_fix_round_trip;
