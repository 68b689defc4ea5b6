//! The pipeline for a set of files: read, parse, analyze (two passes: function summaries of the
//! whole tree first, then each file with them), apply the rules and suppressions.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

use crate::analysis::call_constants::CountParam;
use crate::analysis::{self, CallerReads, FileAnalysis, ModuleInfo, SummaryTable};
use crate::cache::{self, FileEntry, Hash, ProjectTable, SummaryCache};
use crate::config::Settings;
use crate::diagnostic::{Applicability, CellSpot, Diagnostic, Fix};
use crate::discovery::{FileJob, PathProblem};
use crate::model::{FileIndex, FileReport, LintResult, SourceMap, file_diagnostic};
use crate::rules::{self, RuleContext};
use crate::source::notebook::{self, CellMap, Notebook};
use crate::source::{self, Lines, Position, ReadError, SyntaxError, TextRange, TextSize};

mod cells;
pub(crate) mod census;
mod fix;
mod fixed_counts;
mod labels;
mod module;
mod needles;

use module::{lint_module, unreadable};

use cells::{CellContext, lint_cells, lint_notebook, place_in_cell};
pub(crate) use fix::{FixOutcome, fix_text};
pub(crate) use labels::resolve_label_positions;
use labels::{collect_sources, make_label};
use needles::{
    CallMatcher, CallNeedle, NeedleSet, add_summaries, copies_maybe_written, mentions_call,
    needle_of, push_needle,
};

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

/// Where function summaries come from besides the linted files themselves.
#[derive(Default)]
pub(crate) struct Project {
    /// Project roots (absolute): below them, folders without `__init__.py` are namespace packages.
    pub roots: Vec<PathBuf>,
    /// Files of the project read only for their summaries (never reported).
    pub extra: Vec<FileJob>,
    /// The on-disk cache and the root its file keys are relative to.
    pub cache: Option<(SummaryCache, PathBuf)>,
}

/// What one file gives the rest of the project: its own function summaries, and how it reads the
/// results of the table's functions that return a `repeat`.
#[derive(Default)]
pub(crate) struct Found {
    pub summaries: Vec<analysis::FunctionSummary>,
    pub helper_reads: Vec<(String, CallerReads)>,
    /// Calls that pass enlarged values into other files' functions.
    pub passed: Vec<analysis::PassedCall>,
    /// The methods of its classes that a guessed call may lead to (see
    /// [`analysis::defined_methods`]).
    pub methods: Vec<String>,
    /// Its functions that write what they are given in place.
    pub in_place: Vec<analysis::InPlaceWrites>,
    /// The count parameters of its functions that hold a finding (see `fixed_counts`).
    pub count_params: Vec<CountParam>,
}

/// One file's outcome in the first pass: its report (linted files only), what it gives the
/// project and its content hash (`None`: unreadable).
type FirstPass = (Option<FileReport>, Found, Option<Hash>);

/// One file linted: its report, what it gives the project and its content hash (`None`:
/// unreadable).
type Linted = (FileReport, Found, Option<Hash>);

/// Lints files (call inside a [`worker_pool`]), with the summaries of the whole project: the
/// linted files' and `project.extra`'s, from the cache where their content did not change.
pub(crate) fn lint_files(
    jobs: &[FileJob],
    problems: Vec<PathProblem>,
    mut project: Project,
) -> LintResult {
    let init_cache: Mutex<HashMap<PathBuf, bool>> = Mutex::new(HashMap::new());
    let all: Vec<&FileJob> = jobs.iter().chain(project.extra.iter()).collect();
    let linted = jobs.len();
    let modules: Vec<ModuleInfo> = all
        .iter()
        .map(|job| module_info_in(&job.path, job.display.clone(), &init_cache, &project.roots))
        .collect();
    let keys: Vec<String> = match &project.cache {
        Some((_, root)) => all.iter().map(|job| cache_key(&job.path, root)).collect(),
        None => Vec::new(),
    };
    let key_to_display: HashMap<&str, Arc<str>> = keys
        .iter()
        .zip(&all)
        .map(|(k, job)| (k.as_str(), job.display.clone()))
        .collect();
    let display_to_key: HashMap<&str, Arc<str>> = keys
        .iter()
        .zip(&all)
        .map(|(k, job)| (&*job.display, Arc::from(k.as_str())))
        .collect();
    let from_keys = |file: &str| key_to_display.get(file).cloned();
    let to_keys = |file: &str| display_to_key.get(file).cloned();

    // A warm run: every file as the cache saw it, so the project's table is the cached one and
    // only the linted files are read and analysed.
    if let Some((cache, _)) = &project.cache
        && !project.extra.is_empty()
    {
        let hashes: Vec<Option<Hash>> = all
            .par_iter()
            .map(|job| {
                source::read_source(&job.path, job.settings.max_file_size)
                    .ok()
                    .map(|s| cache::hash_text(&s.text))
            })
            .collect();
        let digest = project_digest(&keys, &hashes, &modules);
        if let Some(cached) = cache.table(digest) {
            let mut summaries = cached.summaries.clone();
            cache::relocate(&mut summaries, &from_keys);
            let mut table = SummaryTable::default();
            let mut needles = Vec::new();
            add_summaries(&mut table, summaries, &mut needles);
            table.repeat_callers = cached.repeat_callers.iter().cloned().collect();
            let mut passed = cached.passed.clone();
            cache::relocate_passed(&mut passed, &from_keys);
            for call in passed {
                table.add_passed(call);
            }
            for method in &cached.methods {
                table.add_method(method);
            }
            for writes in &cached.in_place {
                table.add_in_place(writes.clone());
            }
            table.unit_counts = cached.unit_counts.iter().cloned().collect();
            let mentions = NeedleSet::new(needles);
            let reports: Vec<FileReport> = jobs
                .par_iter()
                .zip(modules.par_iter())
                .map(|(job, module)| {
                    let force = table.has_passed() && table.passes_into_module(&module.qualname);
                    lint_job(job, module, &table, force, mentions.as_ref(), false).0
                })
                .collect();
            return finish(reports, problems, &all, table);
        }
    }

    // Pass A: every file with no knowledge of other files; it also yields the functions that
    // return enlarged values. A file that is only read for its summaries takes them from the
    // cache when its content did not change.
    let empty = SummaryTable::default();
    let cache = project.cache.as_ref().map(|(c, _)| c);
    let outcomes: Vec<FirstPass> = (0..all.len())
        .into_par_iter()
        .map(|i| {
            if i >= linted
                && let Some(cache) = cache
                && let Ok(src) = source::read_source(&all[i].path, all[i].settings.max_file_size)
            {
                let hash = cache::hash_text(&src.text);
                if let Some(entry) = cache.file(&keys[i], hash, &modules[i].qualname) {
                    let mut summaries = entry.summaries.clone();
                    cache::relocate(&mut summaries, &from_keys);
                    let mut passed = entry.passed.clone();
                    cache::relocate_passed(&mut passed, &from_keys);
                    let found = Found {
                        summaries,
                        helper_reads: Vec::new(),
                        passed,
                        methods: entry.methods.clone(),
                        in_place: entry.in_place.clone(),
                        count_params: entry.count_params.clone(),
                    };
                    return (None, found, Some(hash));
                }
            }
            let (report, found, hash) =
                lint_job(all[i], &modules[i], &empty, false, None, cache.is_some());
            ((i < linted).then_some(report), found, hash)
        })
        .collect();
    let mut reports = Vec::with_capacity(linted);
    let mut table = SummaryTable::default();
    let mut new_names: Vec<CallNeedle> = Vec::new();
    let mut hashes = Vec::with_capacity(all.len());
    let mut entries: BTreeMap<String, FileEntry> = BTreeMap::new();
    // Named files that define a function returning a `repeat`: linted again once every caller's
    // reads are known.
    let mut repeat_helpers_in: Vec<(usize, Vec<String>)> = Vec::new();
    // Files with functions whose count parameters the project's calls may fix.
    let mut count_params: Vec<(usize, Vec<CountParam>)> = Vec::new();
    for (i, (report, found, hash)) in outcomes.into_iter().enumerate() {
        let Found {
            summaries,
            passed,
            methods,
            in_place,
            count_params: counts,
            ..
        } = found;
        if !counts.is_empty() {
            count_params.push((i, counts.clone()));
        }
        for method in &methods {
            table.add_method(method);
        }
        for writes in &in_place {
            table.add_in_place(writes.clone());
        }
        reports.extend(report);
        let helpers: Vec<String> = summaries
            .iter()
            .filter(|s| s.returns_repeat)
            .map(|s| s.qualname.clone())
            .collect();
        if i < linted && !helpers.is_empty() {
            repeat_helpers_in.push((i, helpers));
        }
        if cache.is_some()
            && let Some(hash) = hash
        {
            let mut stored = summaries.clone();
            cache::relocate(&mut stored, &to_keys);
            let mut stored_passed = passed.clone();
            cache::relocate_passed(&mut stored_passed, &to_keys);
            entries.insert(
                keys[i].clone(),
                FileEntry {
                    hash,
                    module: modules[i].qualname.clone(),
                    summaries: stored,
                    passed: stored_passed,
                    methods,
                    in_place,
                    count_params: counts,
                },
            );
        }
        hashes.push(hash);
        add_summaries(&mut table, summaries, &mut new_names);
        for call in passed {
            table.add_passed(call);
        }
    }
    table.settle_in_place();
    // Counts every call of the project passes as 1: their functions' files are walked again.
    let fixed_in = fixed_counts::fix_counts(&mut table, &count_params, &all, &modules);
    // Pass B (bounded rounds): files that call a summarized function are analysed again with the
    // summaries, which may in turn find helpers that return a helper's result.
    let mut helper_reads: HashMap<usize, Vec<(String, CallerReads)>> = HashMap::new();
    // A `from m import *` may bind a function that returns a `repeat` without naming it: such
    // files are walked too once one is known (the first round), to count that as a mention.
    let mut star_imports = table.repeat_helpers().next().is_some();
    for _ in 0..3 {
        if new_names.is_empty() {
            break;
        }
        let Some(matcher) = CallMatcher::new(std::mem::take(&mut new_names)) else {
            break;
        };
        let dirty: Vec<usize> = (0..all.len())
            .into_par_iter()
            .filter(|&i| {
                source::read_source(&all[i].path, all[i].settings.max_file_size).is_ok_and(|s| {
                    matcher.mentioned_in(&s.text) || (star_imports && s.text.contains("import *"))
                })
            })
            .collect();
        star_imports = false;
        let redone: Vec<(usize, Linted)> = dirty
            .par_iter()
            .map(|&i| (i, lint_job(all[i], &modules[i], &table, true, None, false)))
            .collect();
        for (i, (report, found, _)) in redone {
            if i < linted {
                reports[i] = report;
            }
            // The latest walk of a file has the fullest table: its reads replace earlier ones.
            helper_reads.insert(i, found.helper_reads);
            add_summaries(&mut table, found.summaries, &mut new_names);
            for call in found.passed {
                table.add_passed(call);
            }
        }
    }
    // Every file that names a function returning a `repeat` was walked with the table that
    // has it (they all mention it): the project's reads of each such function are complete.
    let walked_with_table: Vec<usize> = helper_reads.keys().copied().collect();
    table.repeat_callers = sum_reads(helper_reads.into_values());
    let mut helper_files: Vec<usize> = repeat_helpers_in
        .into_iter()
        .filter(|(_, helpers)| {
            helpers
                .iter()
                .any(|q| table.repeat_callers.get(q).is_some_and(|r| r.calls > 0))
        })
        .map(|(i, _)| i)
        .collect();
    // Named files with a function that another file passes enlarged values to: walked again
    // with those values.
    if table.has_passed() {
        for (i, module) in modules.iter().enumerate().take(linted) {
            if !helper_files.contains(&i) && table.passes_into_module(&module.qualname) {
                helper_files.push(i);
            }
        }
    }
    for i in fixed_in {
        if i < linted && !helper_files.contains(&i) && !walked_with_table.contains(&i) {
            helper_files.push(i);
        }
    }
    // Named files reported for a copy that a function of another file may write in place.
    for i in copies_maybe_written(&reports, &all, &table) {
        if !helper_files.contains(&i) && !walked_with_table.contains(&i) {
            helper_files.push(i);
        }
    }
    let relinted: Vec<(usize, FileReport)> = helper_files
        .par_iter()
        .map(|&i| {
            (
                i,
                lint_job(all[i], &modules[i], &table, true, None, false).0,
            )
        })
        .collect();
    for (i, report) in relinted {
        reports[i] = report;
    }
    if let Some((cache, _)) = &mut project.cache {
        let mut summaries: Vec<analysis::FunctionSummary> =
            table.functions.values().map(|s| (**s).clone()).collect();
        summaries.sort_by(|a, b| a.qualname.cmp(&b.qualname));
        cache::relocate(&mut summaries, &to_keys);
        let digest = project_digest(&keys, &hashes, &modules);
        // The same files give the same table: nothing to write.
        let unchanged = cache.table(digest).is_some();
        let mut repeat_callers: Vec<(String, CallerReads)> = table
            .repeat_callers
            .iter()
            .map(|(q, r)| (q.clone(), *r))
            .collect();
        repeat_callers.sort_by(|a, b| a.0.cmp(&b.0));
        let mut passed = table.all_passed();
        cache::relocate_passed(&mut passed, &to_keys);
        cache.replace(
            entries,
            ProjectTable {
                digest,
                summaries,
                repeat_callers,
                passed,
                methods: table.all_methods(),
                in_place: table.all_in_place(),
                unit_counts: {
                    let mut counts: Vec<(String, Vec<String>)> = table
                        .unit_counts
                        .iter()
                        .map(|(q, p)| (q.clone(), p.clone()))
                        .collect();
                    counts.sort();
                    counts
                },
            },
        );
        if !unchanged && let Err(e) = cache.save() {
            eprintln!(
                "oomlint: warning: cannot write the cache {}: {e}",
                cache.path().display()
            );
        }
    }
    finish(reports, problems, &all, table)
}

/// The project's reads of each function that returns a `repeat`: every file's, summed.
fn sum_reads(
    files: impl Iterator<Item = Vec<(String, CallerReads)>>,
) -> HashMap<String, CallerReads> {
    let mut total: HashMap<String, CallerReads> = HashMap::new();
    for reads in files {
        for (qualname, r) in reads {
            total.entry(qualname).or_default().add(&r);
        }
    }
    total
}

/// The digest of a project's files: their keys, content hashes and module names.
fn project_digest(keys: &[String], hashes: &[Option<Hash>], modules: &[ModuleInfo]) -> Hash {
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by(|&a, &b| keys[a].cmp(&keys[b]));
    let mut text = String::new();
    for i in order {
        let hash = hashes[i].map_or_else(|| "-".to_string(), |h| format!("{h:x}"));
        text.push_str(&format!("{}\0{hash}\0{}\n", keys[i], modules[i].qualname));
    }
    cache::hash_text(&text)
}

/// A file's key in the cache: its path relative to the cache's root (absolute outside it).
fn cache_key(path: &Path, root: &Path) -> String {
    let abs = crate::config::absolute(path);
    let rel = abs.strip_prefix(root).unwrap_or(&abs);
    rel.to_string_lossy().replace('\\', "/")
}

fn finish(
    mut reports: Vec<FileReport>,
    problems: Vec<PathProblem>,
    all: &[&FileJob],
    table: SummaryTable,
) -> LintResult {
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
    let sources = collect_sources(&reports, all);
    LintResult {
        reports,
        sources,
        summaries: Arc::new(table),
    }
}

/// The summaries of a whole project (the language server's workspace), from the cache where
/// files did not change.
pub(crate) fn project_summaries(project: Project) -> SummaryTable {
    let result = lint_files(&[], Vec::new(), project);
    Arc::try_unwrap(result.summaries).unwrap_or_default()
}

/// The module name of a file, caching which folders are packages.
pub(crate) fn module_info(
    path: &Path,
    display: Arc<str>,
    cache: &Mutex<HashMap<PathBuf, bool>>,
) -> ModuleInfo {
    module_info_in(path, display, cache, &[])
}

/// The module name of a file inside the closest of `roots` (namespace packages resolve).
pub(crate) fn module_info_in(
    path: &Path,
    display: Arc<str>,
    cache: &Mutex<HashMap<PathBuf, bool>>,
    roots: &[PathBuf],
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
    let root = roots
        .iter()
        .filter(|r| abs.starts_with(r))
        .max_by_key(|r| r.as_os_str().len());
    ModuleInfo::for_path_in(&abs, display, &has_init, root.map(PathBuf::as_path))
}

/// Reads and lints one file; `force` analyzes it even without an enlarger in its text, as does a
/// mention of one of `mentions`' summarized functions. Also returns the content hash when `hash`
/// asks for it (only the cache needs it: a cold `--no-cache` run does not read every byte twice).
fn lint_job(
    job: &FileJob,
    module: &ModuleInfo,
    summaries: &SummaryTable,
    force: bool,
    mentions: Option<&NeedleSet>,
    hash: bool,
) -> Linted {
    match source::read_source(&job.path, job.settings.max_file_size) {
        Ok(src) => {
            let hash = hash.then(|| cache::hash_text(&src.text));
            let force = force || mentions.is_some_and(|set| mentions_call(&src.text, set));
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
                Ok((report, found)) => (report, found, hash),
                Err(_) => (
                    unreadable(
                        job.display.clone(),
                        &job.settings,
                        &job.path,
                        "internal error while linting this file (reported above); other files are unaffected".to_string(),
                        Position { row: 1, column: 1 },
                    ),
                    Found::default(),
                    hash,
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
            Found::default(),
            None,
        ),
    }
}

/// The sizes the model's configuration states for the file at `path` (its folder's
/// `config.json` and `configuration_*.py`), under the aliases the module's own code gives them.
pub(crate) fn file_model_dims(
    path: &Path,
    body: &[crate::source::ast::Stmt],
) -> Arc<rules::size_estimate::ModelDims> {
    rules::size_estimate::with_aliases(
        crate::config::model_dims_for(path.parent().unwrap_or(Path::new("."))),
        &analysis::model_config::config_aliases(body),
    )
}

/// What the rules consult for one file besides its sites.
pub(crate) fn rule_context<'a>(
    settings: &'a Settings,
    display: &'a str,
    path: &Path,
    model_dims: &'a rules::size_estimate::ModelDims,
) -> RuleContext<'a> {
    RuleContext {
        dims: &settings.dims,
        dim_origins: &settings.dim_origins,
        file: display,
        min_static_bytes: settings.min_static_bytes,
        model_dims,
        learned: &settings.learned,
        capacity: settings.capacity,
        in_test_file: settings.is_test_file(path),
    }
}

/// Lints one text. `path` is used for per-file settings and module naming; a notebook
/// (`.ipynb`) is read as its code cells (see [`lint_notebook`]).
pub(crate) fn lint_text(
    text: &str,
    path: &Path,
    module: &ModuleInfo,
    settings: &Settings,
    summaries: &SummaryTable,
    force: bool,
) -> (FileReport, Found) {
    if notebook::is_notebook(path) {
        return lint_notebook(text, path, module, settings, summaries, force);
    }
    lint_module(text, path, module, settings, summaries, force, None)
}

/// Lints source text given directly (stdin, editors, tests) with the summaries of its project
/// (empty when there is none); `roots` are the project roots for its module name.
pub(crate) fn lint_source(
    text: &str,
    path: &Path,
    display: Arc<str>,
    settings: &Settings,
    summaries: Arc<SummaryTable>,
    roots: &[PathBuf],
) -> LintResult {
    let init_cache = Mutex::new(HashMap::new());
    let module = module_info_in(path, display, &init_cache, roots);
    let mut needles = Vec::new();
    for summary in summaries.functions.values() {
        push_needle(&mut needles, needle_of(summary));
    }
    let force =
        !needles.is_empty() && NeedleSet::new(needles).is_some_and(|set| mentions_call(text, &set));
    let (report, _) = lint_text(text, path, &module, settings, &summaries, force);
    let mut sources = SourceMap::new();
    if let Some(src) = &report.source {
        sources.insert(report.display.clone(), src.clone());
    }
    let mut result = LintResult {
        reports: vec![report],
        sources,
        summaries,
    };
    // Labels in the helpers' files: their text, for the positions and the rendering.
    let others = collect_sources(&result.reports, &[]);
    for (file, src) in others {
        result.sources.entry(file).or_insert(src);
    }
    result
}

/// The old path of the fix round-trip check, kept until `tests/` moves to `testing`.
#[cfg(any(test, feature = "fuzzing"))]
#[doc(hidden)]
pub use crate::testing::check_fix_round_trip;
