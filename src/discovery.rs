//! Finding the files to lint: paths on the command line, folders walked with `.gitignore` and
//! config excludes respected.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ignore::WalkBuilder;

use crate::config::{ConfigError, Resolver, Settings, absolute};

/// One file to lint and the settings that apply to it.
pub struct FileJob {
    pub path: PathBuf,
    /// The path as shown in output (relative when given relative).
    pub display: Arc<str>,
    pub settings: Arc<Settings>,
}

/// A path that could not be walked or read: reported as OOM002.
pub struct PathProblem {
    pub display: Arc<str>,
    pub message: String,
}

#[derive(Default)]
pub struct Discovery {
    pub files: Vec<FileJob>,
    pub problems: Vec<PathProblem>,
}

fn display_of(path: &Path) -> Arc<str> {
    let text = path.to_string_lossy();
    let text = text.strip_prefix("./").unwrap_or(&text);
    Arc::from(text)
}

/// Collects the files under `paths`, sorted by path with duplicates removed. The first broken
/// config file met on the way is the error.
pub fn discover(
    paths: &[PathBuf],
    resolver: &Arc<Resolver>,
    force_exclude: bool,
) -> Result<Discovery, ConfigError> {
    let mut out = Discovery::default();
    let mut seen: HashSet<PathBuf> = HashSet::new();
    for root in paths {
        let settings = resolver.try_settings_for(root)?;
        let meta = match std::fs::metadata(root) {
            Ok(m) => m,
            Err(e) => {
                out.problems.push(PathProblem {
                    display: display_of(root),
                    message: format!("cannot read path: {e}"),
                });
                continue;
            }
        };
        if !meta.is_dir() {
            // A file named explicitly is linted whatever its extension, unless --force-exclude
            // and a config exclude say otherwise (pre-commit passes paths this way).
            if force_exclude && is_excluded_anywhere(root, resolver)? {
                continue;
            }
            if seen.insert(absolute(root)) {
                out.files.push(FileJob {
                    path: root.clone(),
                    display: display_of(root),
                    settings,
                });
            }
            continue;
        }
        if force_exclude && is_excluded_anywhere(root, resolver)? {
            continue;
        }
        let mut builder = WalkBuilder::new(root);
        builder
            .hidden(false)
            .parents(true)
            .ignore(true)
            .git_ignore(settings.respect_gitignore)
            .git_exclude(settings.respect_gitignore)
            .git_global(false)
            .require_git(false)
            .follow_links(false);
        let filter_resolver = Arc::clone(resolver);
        // The walker's filter cannot fail: it keeps the first config error for after the walk.
        let walk_error: Arc<Mutex<Option<ConfigError>>> = Arc::default();
        let filter_error = Arc::clone(&walk_error);
        // Excludes come from the config closest to each entry.
        let walker = builder
            .filter_entry(move |entry| {
                if entry.depth() == 0 {
                    return true;
                }
                match filter_resolver.try_settings_for(entry.path()) {
                    Ok(settings) => !settings.is_excluded(&absolute(entry.path())),
                    Err(e) => {
                        if let Ok(mut first) = filter_error.lock() {
                            first.get_or_insert(e);
                        }
                        false
                    }
                }
            })
            .build();
        let mut found = Vec::new();
        for entry in walker {
            match entry {
                Ok(entry) => {
                    let is_file = entry.file_type().is_some_and(|t| t.is_file());
                    // `include` (by default `*.py`, `*.pyi`, `*.ipynb`) of the closest config.
                    if is_file
                        && resolver
                            .try_settings_for(entry.path())?
                            .is_included(&absolute(entry.path()))
                    {
                        found.push(entry.into_path());
                    }
                }
                Err(err) => {
                    let display = match &err {
                        ignore::Error::WithPath { path, .. } => display_of(path),
                        _ => display_of(root),
                    };
                    out.problems.push(PathProblem {
                        display,
                        message: format!("cannot walk: {}", one_line(&err.to_string())),
                    });
                }
            }
        }
        if let Some(e) = walk_error.lock().ok().and_then(|mut e| e.take()) {
            return Err(e);
        }
        for path in found {
            if seen.insert(absolute(&path)) {
                let settings = resolver.try_settings_for(&path)?;
                out.files.push(FileJob {
                    display: display_of(&path),
                    path,
                    settings,
                });
            }
        }
    }
    out.files.sort_by(|a, b| a.display.cmp(&b.display));
    keep_one_path_per_file(&mut out.files);
    Ok(out)
}

/// Two paths naming one file (a symlink given next to its target, a hard link) are linted once,
/// under the first in sorted order: `--fix` must change a file once, not race itself.
fn keep_one_path_per_file(files: &mut Vec<FileJob>) {
    let mut seen = HashSet::new();
    files.retain(|f| match file_identity(&f.path) {
        Some(id) => seen.insert(id),
        None => true,
    });
}

#[cfg(unix)]
fn file_identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn file_identity(path: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(path).ok()
}

/// With `--force-exclude` (and for an editor buffer), a path is excluded when it or any folder
/// above it matches.
pub fn is_excluded_anywhere(path: &Path, resolver: &Resolver) -> Result<bool, ConfigError> {
    let abs = absolute(path);
    let mut current: Option<&Path> = Some(&abs);
    while let Some(p) = current {
        let settings = resolver.try_settings_for(p)?;
        if p.starts_with(&settings.root) && p != settings.root && settings.is_excluded(p) {
            return Ok(true);
        }
        current = p.parent();
    }
    Ok(false)
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The root of the project `path` belongs to, whose files give the function summaries when only
/// some of them are linted: the folder of the closest config file, else the closest folder with
/// a `.git`, else the top package (the highest folder of an unbroken `__init__.py` chain). `None`
/// when there is none of these: the named path is the whole project.
pub fn project_root(path: &Path, resolver: &Resolver) -> Result<Option<PathBuf>, ConfigError> {
    let abs = absolute(path);
    let settings = resolver.try_settings_for(&abs)?;
    if settings.source.is_some() && abs.starts_with(&settings.root) {
        return Ok(Some(settings.root.clone()));
    }
    let start = if abs.is_dir() {
        abs.clone()
    } else {
        abs.parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| abs.clone())
    };
    if let Some(vcs) = start.ancestors().find(|d| d.join(".git").exists()) {
        return Ok(Some(vcs.to_path_buf()));
    }
    let is_package = |d: &Path| d.join("__init__.py").is_file() || d.join("__init__.pyi").is_file();
    Ok(start
        .ancestors()
        .take_while(|d| is_package(d))
        .last()
        .map(Path::to_path_buf))
}

/// The path to walk for a project root: relative to the working folder when it is inside it,
/// so that its files are shown as the user's own paths are.
pub fn shown_root(root: &Path) -> PathBuf {
    let cwd = std::env::current_dir().ok().map(|d| absolute(&d));
    match cwd.as_deref().and_then(|cwd| root.strip_prefix(cwd).ok()) {
        Some(rel) if rel.as_os_str().is_empty() => PathBuf::from("."),
        Some(rel) => rel.to_path_buf(),
        None => root.to_path_buf(),
    }
}
