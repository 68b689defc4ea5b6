//! The application layer: the sequence lint -> fix -> attach evidence -> cross-reference, written
//! once for both front ends. `cli` (a tree or stdin) and `server` (one open buffer) turn their
//! input into calls here and only print, write or publish what comes back.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::analysis::SummaryTable;
use crate::cache::SummaryCache;
use crate::config::{ConfigError, Resolver, Settings};
use crate::crossref::{self, JoinOptions, LintedFile};
use crate::discovery::{self, FileJob};
use crate::evidence::{self, Evidence, EvidenceError};
use crate::fix::WriteError;
use crate::linter::{self, FixOutcome, Project};
use crate::model::{self, FileReport, LintResult};
use crate::rules;
use crate::rules::size_estimate::LearnedDims;
use crate::source::{self, Position};

/// Runs the pipeline with one resolver of settings, on a worker pool or on the caller's thread.
pub struct App {
    resolver: Arc<Resolver>,
    /// Read and write the summary cache (`--no-cache` turns it off).
    use_cache: bool,
    /// `None`: run on the caller's thread, which must have a large stack (the server's).
    pool: Option<rayon::ThreadPool>,
}

/// What a lint produced, with the files it covered (for fixes and the evidence join).
pub struct Linted {
    pub result: LintResult,
    pub files: Vec<LintedFile>,
    /// The discovered files with their settings (empty for a text given directly).
    pub jobs: Vec<FileJob>,
}

/// One text to fix: stdin, an editor buffer or a file of the tree.
pub struct FixTarget {
    pub path: PathBuf,
    pub display: Arc<str>,
    pub settings: Arc<Settings>,
    pub text: String,
    /// The bytes as read: the file is written back only if it still holds them.
    pub original: Vec<u8>,
    /// Write the fixed text over the file (not for stdin, buffers or `--diff`).
    pub write: bool,
}

/// The outcome of fixing one target.
pub struct Fixed {
    pub outcome: FixOutcome,
    /// Whether the write succeeded, when the target asked for one and a fix applied.
    pub written: Option<Result<(), WriteError>>,
}

/// How evidence is joined to a lint.
pub struct EvidenceOptions<'a> {
    /// Hide measured findings below this size; also the OOM202 threshold.
    pub min_bytes: Option<u64>,
    /// The settings of the working folder: `path-map`, and which profile rules apply outside the
    /// linted files.
    pub here: &'a Settings,
    /// Report profile findings at locations outside the linted files (a tree does; a single
    /// editor buffer does not).
    pub outside: bool,
}

impl App {
    /// An application that runs on a pool of `threads` workers (default: one per core) with
    /// large stacks.
    pub fn new(resolver: Arc<Resolver>, threads: Option<usize>) -> Self {
        App {
            resolver,
            use_cache: true,
            pool: linter::worker_pool(threads),
        }
    }

    /// An application that runs on the caller's thread.
    pub fn in_place(resolver: Arc<Resolver>) -> Self {
        App {
            resolver,
            use_cache: true,
            pool: None,
        }
    }

    /// The same application, reading and writing the summary cache or not.
    pub fn with_cache(mut self, use_cache: bool) -> Self {
        self.use_cache = use_cache;
        self
    }

    pub fn resolver(&self) -> &Arc<Resolver> {
        &self.resolver
    }

    /// The settings for `path` (the defaults where its config file is broken).
    pub fn settings_for(&self, path: &Path) -> Arc<Settings> {
        self.resolver.settings_for(path)
    }

    pub fn try_settings_for(&self, path: &Path) -> Result<Arc<Settings>, ConfigError> {
        self.resolver.try_settings_for(path)
    }

    fn run<T: Send>(&self, f: impl FnOnce() -> T + Send) -> T {
        match &self.pool {
            Some(pool) => pool.install(f),
            None => f(),
        }
    }

    /// Discovers and lints the files under `paths`, with the function summaries of the projects
    /// they belong to. A bad config file met on the way is an error.
    pub fn lint_paths(
        &self,
        paths: &[PathBuf],
        force_exclude: bool,
    ) -> Result<Linted, ConfigError> {
        let found = discovery::discover(paths, &self.resolver, force_exclude)?;
        let project = self.project(paths, &found.files)?;
        let files = found
            .files
            .iter()
            .map(|f| LintedFile {
                display: f.display.clone(),
                path: f.path.clone(),
                text: None,
            })
            .collect();
        let result = self.run(|| linter::lint_files(&found.files, found.problems, project));
        Ok(Linted {
            result,
            files,
            jobs: found.files,
        })
    }

    /// `oomlint sites`: every enlargement under `paths` with its fate. The files are linted as
    /// `check` lints them (the same project summaries, selection and suppressions), then each
    /// is analysed once more to say what became of every enlargement.
    pub fn sites(
        &self,
        paths: &[PathBuf],
        force_exclude: bool,
    ) -> Result<Vec<model::FileSites>, ConfigError> {
        let found = discovery::discover(paths, &self.resolver, force_exclude)?;
        let project = self.project(paths, &found.files)?;
        let roots = project.roots.clone();
        let result = self.run(|| linter::lint_files(&found.files, Vec::new(), project));
        let init_cache = Mutex::new(HashMap::new());
        let no_diagnostics = Vec::new();
        let census = |job: &FileJob| {
            let reported = result
                .reports
                .iter()
                .find(|r| r.display == job.display)
                .map_or(&no_diagnostics, |r| &r.diagnostics);
            let module =
                linter::module_info_in(&job.path, job.display.clone(), &init_cache, &roots);
            linter::census::census_job(job, &module, &result.summaries, reported)
        };
        Ok(self.run(|| {
            use rayon::prelude::*;
            found.files.par_iter().map(census).collect()
        }))
    }

    /// The project around `paths`: its roots, the files under them that are not linted (read
    /// for their summaries) and the cache. A root inside a named folder adds no file.
    fn project(&self, paths: &[PathBuf], linted: &[FileJob]) -> Result<Project, ConfigError> {
        let mut roots: Vec<PathBuf> = Vec::new();
        // A path in no project names its modules from the working folder (as Python's path
        // does when run from there): `pkg/masks.py` is `pkg.masks`.
        let mut naming: Vec<PathBuf> = Vec::new();
        for path in paths {
            match discovery::project_root(path, &self.resolver)? {
                Some(root) => {
                    if !roots.contains(&root) {
                        roots.push(root);
                    }
                }
                None => {
                    if let Ok(cwd) = std::env::current_dir().map(|d| crate::config::absolute(&d))
                        && crate::config::absolute(path).starts_with(&cwd)
                        && !naming.contains(&cwd)
                    {
                        naming.push(cwd);
                    }
                }
            }
        }
        let mut seen: HashSet<PathBuf> = linted
            .iter()
            .map(|j| crate::config::absolute(&j.path))
            .collect();
        let mut extra = Vec::new();
        for root in &roots {
            let covered = paths.iter().any(|p| {
                let named = crate::config::absolute(p);
                named.is_dir() && root.starts_with(&named)
            });
            if covered {
                continue;
            }
            // The project's own unreadable paths are not the user's concern here.
            let walked =
                discovery::discover(&[discovery::shown_root(root)], &self.resolver, false)?;
            for job in walked.files {
                if seen.insert(crate::config::absolute(&job.path)) {
                    extra.push(job);
                }
            }
        }
        let cache = match roots.as_slice() {
            [root] if self.use_cache => {
                let dir = self.cache_dir(root)?;
                Some((SummaryCache::open(&dir, root), root.clone()))
            }
            _ => None,
        };
        roots.extend(naming);
        Ok(Project {
            roots,
            extra,
            cache,
        })
    }

    /// Where the cache of `root` lives: `cache-dir` of its configuration, else
    /// `.oomlint_cache/` beside the configuration file, else at the root.
    fn cache_dir(&self, root: &Path) -> Result<PathBuf, ConfigError> {
        let settings = self.resolver.try_settings_for(root)?;
        Ok(match (&settings.cache_dir, &settings.source) {
            (Some(dir), _) => dir.clone(),
            (None, Some(_)) => settings.root.join(crate::cache::DEFAULT_DIR),
            (None, None) => root.join(crate::cache::DEFAULT_DIR),
        })
    }

    /// The summaries of the project holding `path` (a buffer or stdin's file) with its roots,
    /// `path` itself left out: its text is the one given. Empty outside any project.
    pub fn project_summaries(&self, path: &Path) -> (Arc<SummaryTable>, Vec<PathBuf>) {
        let Ok(Some(root)) = discovery::project_root(path, &self.resolver) else {
            return (Arc::default(), Vec::new());
        };
        self.summaries_of_root(&root, Some(path))
    }

    /// The summaries of every file under `root` but `skip` (the language server's workspace).
    pub fn summaries_of_root(
        &self,
        root: &Path,
        skip: Option<&Path>,
    ) -> (Arc<SummaryTable>, Vec<PathBuf>) {
        let root = crate::config::absolute(root);
        let Ok(walked) =
            discovery::discover(&[discovery::shown_root(&root)], &self.resolver, false)
        else {
            return (Arc::default(), vec![root]);
        };
        // `skip` is read with the others (how the project reads the functions it defines that
        // return a `repeat` needs its own summaries), and its summaries are dropped after.
        let skip = skip.map(crate::config::absolute);
        let skipped_module = skip.as_ref().map(|path| {
            let display: Arc<str> = Arc::from(path.to_string_lossy().as_ref());
            let init_cache = std::sync::Mutex::new(std::collections::HashMap::new());
            linter::module_info_in(path, display, &init_cache, std::slice::from_ref(&root)).qualname
        });
        let extra = walked.files;
        let cache = if self.use_cache {
            self.cache_dir(&root)
                .ok()
                .map(|dir| (SummaryCache::open(&dir, &root), root.clone()))
        } else {
            None
        };
        let project = Project {
            roots: vec![root.clone()],
            extra,
            cache,
        };
        // Many files: on a pool with large stacks even when this application runs in place.
        let mut table = match &self.pool {
            Some(pool) => pool.install(|| linter::project_summaries(project)),
            None => match linter::worker_pool(None) {
                Some(pool) => pool.install(|| linter::project_summaries(project)),
                None => linter::project_summaries(project),
            },
        };
        if let Some(module) = skipped_module {
            // Its text is the one given: its functions are summarized from that text.
            table.remove_module(&module);
        }
        (Arc::new(table), vec![root])
    }

    /// Lints a text given directly, as if it were the file `path`, with the summaries of its
    /// project (see [`App::project_summaries`]).
    pub fn lint_text_with(
        &self,
        text: &str,
        path: &Path,
        display: Arc<str>,
        settings: &Settings,
        summaries: Arc<SummaryTable>,
        roots: &[PathBuf],
    ) -> Linted {
        let files = vec![LintedFile {
            display: display.clone(),
            path: path.to_path_buf(),
            text: Some(Arc::from(text)),
        }];
        let result =
            self.run(|| linter::lint_source(text, path, display, settings, summaries, roots));
        Linted {
            result,
            files,
            jobs: Vec::new(),
        }
    }

    /// Lints bytes read from stdin as the file `path`; also returns the decoded text (`None`:
    /// not decodable, reported as OOM002). A broken config file for `path` is the error.
    pub fn lint_bytes(
        &self,
        bytes: Vec<u8>,
        path: &Path,
    ) -> Result<(Linted, Option<String>), ConfigError> {
        let settings = self.resolver.try_settings_for(path)?;
        let display: Arc<str> = Arc::from(path.to_string_lossy().as_ref());
        match source::decode(bytes) {
            Ok(src) => {
                let (summaries, roots) = self.project_summaries(path);
                let linted =
                    self.lint_text_with(&src.text, path, display, &settings, summaries, &roots);
                Ok((linted, Some(src.text)))
            }
            Err(err) => {
                let result = LintResult {
                    reports: vec![FileReport {
                        display: display.clone(),
                        source: None,
                        index: None,
                        diagnostics: vec![model::file_diagnostic(
                            &rules::UNREADABLE_FILE,
                            display,
                            err.to_string(),
                            Position { row: 1, column: 1 },
                        )],
                    }],
                    sources: Default::default(),
                    summaries: Default::default(),
                };
                let linted = Linted {
                    result,
                    files: Vec::new(),
                    jobs: Vec::new(),
                };
                Ok((linted, None))
            }
        }
    }

    /// The files of a tree lint that have a fix, read again (skipped when no longer readable as
    /// UTF-8), each with the index of its report.
    pub fn fix_targets(&self, linted: &Linted, write: bool) -> Vec<(usize, FixTarget)> {
        let by_display: HashMap<&str, &FileJob> =
            linted.jobs.iter().map(|j| (&*j.display, j)).collect();
        let mut targets = Vec::new();
        for (i, report) in linted.result.reports.iter().enumerate() {
            if !report.diagnostics.iter().any(|d| d.fix.is_some()) {
                continue;
            }
            let Some(job) = by_display.get(&*report.display) else {
                continue;
            };
            let Ok(original) = std::fs::read(&job.path) else {
                continue;
            };
            let Ok(text) = String::from_utf8(original.clone()) else {
                continue;
            };
            targets.push((
                i,
                FixTarget {
                    path: job.path.clone(),
                    display: job.display.clone(),
                    settings: job.settings.clone(),
                    text,
                    original,
                    write,
                },
            ));
        }
        targets
    }

    /// Fixes one target until no fix is left (bounded) and writes it back if it asks for that.
    /// `unsafe_fixes` overrides the configuration's `unsafe-fixes`.
    pub fn fix(
        &self,
        target: &FixTarget,
        summaries: &SummaryTable,
        unsafe_fixes: Option<bool>,
    ) -> Fixed {
        let allow_unsafe = unsafe_fixes.unwrap_or(target.settings.unsafe_fixes);
        let module = linter::module_info(
            &target.path,
            target.display.clone(),
            &Mutex::new(HashMap::new()),
        );
        let outcome = self.run(|| {
            linter::fix_text(
                &target.text,
                &target.path,
                &module,
                &target.settings,
                summaries,
                allow_unsafe,
            )
        });
        let written = (target.write && outcome.applied > 0)
            .then(|| crate::fix::write_fixed(&target.path, &target.original, &outcome.text));
        Fixed { outcome, written }
    }

    /// Puts the report of a fixed file in place of its old one.
    pub fn replace_report(linted: &mut Linted, index: usize, report: FileReport) {
        let result = &mut linted.result;
        result.reports[index] = report;
        let report = &result.reports[index];
        if let Some(src) = &report.source {
            result.sources.insert(report.display.clone(), src.clone());
        }
    }

    /// Fills in the positions of labels that point into other files (after the fixes).
    pub fn resolve_labels(linted: &mut Linted) {
        linter::resolve_label_positions(&mut linted.result);
    }

    /// Joins evidence to the findings and adds the profile-only ones.
    pub fn attach_evidence(
        &self,
        linted: &mut Linted,
        evidence: &[Evidence],
        options: &EvidenceOptions,
    ) {
        let here = options.here;
        let enabled = |code: &'static str, path: Option<&Path>| -> bool {
            match path {
                Some(p) => self.resolver.settings_for(p).is_enabled(code, p),
                None => options.outside && here.is_enabled(code, Path::new(".")),
            }
        };
        let is_test_file = |p: &Path| -> bool { self.resolver.settings_for(p).is_test_file(p) };
        let join = JoinOptions {
            min_bytes: options.min_bytes,
            path_map: &here.path_map,
            max_file_size: here.max_file_size,
            enabled: &enabled,
            is_test_file: &is_test_file,
        };
        crossref::attach(&mut linted.result, &linted.files, evidence, &join);
    }
}

impl App {
    /// Sizes the evidence measured at the findings of a first lint (see
    /// [`crossref::learn_dims`]); `here` gives `path-map` and `max-file-size`.
    pub fn learn_dims(
        &self,
        linted: &Linted,
        evidence: &[Evidence],
        here: &Settings,
    ) -> LearnedDims {
        crossref::learn_dims::learn(
            &linted.result,
            &linted.files,
            evidence,
            &here.path_map,
            here.max_file_size,
        )
    }
}

/// Reads profiles (any kind, detected) and OOM logs, in order; each is read or fails alone.
pub fn load_evidence(
    profiles: &[PathBuf],
    oom_logs: &[PathBuf],
) -> Vec<Result<Evidence, EvidenceError>> {
    profiles
        .iter()
        .map(|p| evidence::load(p))
        .chain(oom_logs.iter().map(|p| evidence::oom_log::read_path(p)))
        .collect()
}
