//! Configuration: `[tool.oomlint]` in `pyproject.toml`, or `oomlint.toml` / `.oomlint.toml`. The
//! closest file to each linted file wins; command-line flags override it.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::Deserialize;

use crate::rules::RULES;

/// Folders never linted unless `exclude` is overridden.
pub const DEFAULT_EXCLUDES: &[&str] = &[
    ".bzr",
    ".direnv",
    ".eggs",
    ".git",
    ".git-rewrite",
    ".hg",
    ".mypy_cache",
    ".nox",
    ".pants.d",
    ".pytype",
    ".ruff_cache",
    ".svn",
    ".tox",
    ".venv",
    "__pypackages__",
    "_build",
    "buck-out",
    "dist",
    "node_modules",
    "site-packages",
    "venv",
];

/// The output formats `--output-format` and `output-format` accept.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum OutputFormat {
    /// Source frames with the whole chain, the fix and the size (default).
    Full,
    /// `path:line:col: CODE message`.
    Concise,
    /// A JSON array with ruff's keys plus `chain` and `evidence`.
    Json,
    /// One `json` object per line.
    JsonLines,
    /// SARIF 2.1.0 (code scanning).
    Sarif,
    /// GitHub Actions workflow commands (annotations).
    Github,
    /// GitLab code quality report.
    Gitlab,
    /// JUnit XML.
    Junit,
}

/// A size in bytes: an integer, or a string such as `"512MiB"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByteSize(pub u64);

impl<'de> Deserialize<'de> for ByteSize {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Int(u64),
            Text(String),
        }
        match Raw::deserialize(d)? {
            Raw::Int(n) => Ok(ByteSize(n)),
            Raw::Text(s) => parse_byte_size(&s)
                .map(ByteSize)
                .map_err(serde::de::Error::custom),
        }
    }
}

/// `"1.5GiB"`, `"300 MB"`, `"4096"` -> bytes.
pub fn parse_byte_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let value: f64 = num.parse().map_err(|_| {
        format!("invalid size `{text}`: expected a number with an optional unit such as 512MiB")
    })?;
    let factor: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" => 1e3,
        "m" | "mb" => 1e6,
        "g" | "gb" => 1e9,
        "t" | "tb" => 1e12,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        "tib" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        other => return Err(format!("invalid size unit `{other}` in `{text}`")),
    };
    Ok((value * factor) as u64)
}

/// The keys of a config file. Unknown keys are errors.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ConfigFile {
    pub select: Option<Vec<String>>,
    pub ignore: Option<Vec<String>>,
    pub extend_select: Option<Vec<String>>,
    pub per_file_ignores: Option<BTreeMap<String, Vec<String>>>,
    pub exclude: Option<Vec<String>>,
    pub extend_exclude: Option<Vec<String>>,
    pub respect_gitignore: Option<bool>,
    pub fixable: Option<Vec<String>>,
    pub unfixable: Option<Vec<String>>,
    pub unsafe_fixes: Option<bool>,
    pub output_format: Option<OutputFormat>,
    pub dims: Option<BTreeMap<String, i64>>,
    pub profiles: Option<Vec<String>>,
    pub min_bytes: Option<ByteSize>,
    pub min_static_bytes: Option<ByteSize>,
    pub path_map: Option<BTreeMap<String, String>>,
}

#[derive(Deserialize)]
struct PyProject {
    tool: Option<PyProjectTool>,
}

#[derive(Deserialize)]
struct PyProjectTool {
    oomlint: Option<ConfigFile>,
}

/// A configuration error: the file, the position when known, and what is wrong.
#[derive(Debug, Clone)]
pub struct ConfigError(pub String);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Reads a config file; `Ok(None)` for a `pyproject.toml` without `[tool.oomlint]`.
pub fn read_config_file(path: &Path) -> Result<Option<ConfigFile>, ConfigError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| ConfigError(format!("{}: cannot read: {e}", path.display())))?;
    let is_pyproject = path.file_name().is_some_and(|n| n == "pyproject.toml");
    let position = |span: Option<std::ops::Range<usize>>| -> String {
        span.map(|s| {
            let before = &text[..s.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let col = before.len() - before.rfind('\n').map_or(0, |p| p + 1) + 1;
            format!(":{line}:{col}")
        })
        .unwrap_or_default()
    };
    let section = if is_pyproject { " [tool.oomlint]" } else { "" };
    // toml names unknown keys but not the key of a value of the wrong type: take it from the line.
    let key_of = |span: Option<std::ops::Range<usize>>, message: &str| -> String {
        let message = message.replace('\n', " ");
        let Some(span) = span else { return message };
        let start = span.start.min(text.len());
        let line_start = text[..start].rfind('\n').map_or(0, |p| p + 1);
        let line_end = text[start..].find('\n').map_or(text.len(), |p| start + p);
        let line = &text[line_start..line_end];
        match line.split_once('=') {
            Some((key, _)) if !key.trim().is_empty() && !key.contains('[') => {
                let key = key.trim().trim_matches('"');
                if message.contains(key) {
                    message
                } else {
                    format!("key `{key}`: {message}")
                }
            }
            _ => message,
        }
    };
    let config = if is_pyproject {
        let parsed: PyProject = toml::from_str(&text).map_err(|e| {
            ConfigError(format!(
                "{}{}:{section} {}",
                path.display(),
                position(e.span()),
                key_of(e.span(), e.message())
            ))
        })?;
        match parsed.tool.and_then(|t| t.oomlint) {
            Some(c) => c,
            None => return Ok(None),
        }
    } else {
        toml::from_str::<ConfigFile>(&text).map_err(|e| {
            ConfigError(format!(
                "{}{}: {}",
                path.display(),
                position(e.span()),
                key_of(e.span(), e.message())
            ))
        })?
    };
    validate(&config).map_err(|msg| ConfigError(format!("{}:{section} {msg}", path.display())))?;
    Ok(Some(config))
}

fn validate(config: &ConfigFile) -> Result<(), String> {
    let lists: [(&str, &Option<Vec<String>>); 5] = [
        ("select", &config.select),
        ("ignore", &config.ignore),
        ("extend-select", &config.extend_select),
        ("fixable", &config.fixable),
        ("unfixable", &config.unfixable),
    ];
    for (key, list) in lists {
        for selector in list.iter().flatten() {
            check_selector(selector).map_err(|e| format!("key `{key}`: {e}"))?;
        }
    }
    for (pattern, codes) in config.per_file_ignores.iter().flatten() {
        Glob::new(pattern)
            .map_err(|e| format!("key `per-file-ignores`: invalid glob `{pattern}`: {e}"))?;
        for code in codes {
            check_selector(code)
                .map_err(|e| format!("key `per-file-ignores.\"{pattern}\"`: {e}"))?;
        }
    }
    for (key, list) in [
        ("exclude", &config.exclude),
        ("extend-exclude", &config.extend_exclude),
    ] {
        for pattern in list.iter().flatten() {
            Glob::new(pattern)
                .map_err(|e| format!("key `{key}`: invalid glob `{pattern}`: {e}"))?;
        }
    }
    for (name, value) in config.dims.iter().flatten() {
        if *value <= 0 {
            return Err(format!(
                "key `dims.{name}`: expected a positive integer, got {value}"
            ));
        }
    }
    Ok(())
}

/// The selection when none is configured: the rules in the default set. `ALL` selects the
/// others too (as in ruff).
fn default_selection() -> Vec<String> {
    RULES
        .iter()
        .filter(|r| r.default)
        .map(|r| r.code.to_string())
        .collect()
}

/// Checks a rule selector: `ALL`, a code (`OOM101`), or a code prefix (`OOM1`).
pub fn check_selector(selector: &str) -> Result<(), String> {
    if selector_matches_any(selector) {
        Ok(())
    } else {
        Err(format!(
            "unknown rule selector `{selector}` (expected ALL, a code such as OOM101, or a prefix such as OOM1)"
        ))
    }
}

fn selector_matches_any(selector: &str) -> bool {
    RULES.iter().any(|r| selector_matches(selector, r.code))
}

/// Does `selector` select rule `code`?
pub fn selector_matches(selector: &str, code: &str) -> bool {
    let s = selector.trim().to_ascii_uppercase();
    s == "ALL" || (!s.is_empty() && code.starts_with(&s))
}

/// Options from the command line that override every config file.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    pub select: Option<Vec<String>>,
    pub ignore: Vec<String>,
    pub extend_select: Vec<String>,
    pub dims: Vec<(String, i64)>,
    pub output_format: Option<OutputFormat>,
}

/// The effective settings for the files under one config file.
#[derive(Debug)]
pub struct Settings {
    /// The folder globs are relative to.
    pub root: PathBuf,
    /// The config file these came from (None: defaults).
    pub source: Option<PathBuf>,
    select: Vec<String>,
    ignore: Vec<String>,
    per_file_ignores: Vec<(GlobSet, Vec<String>)>,
    exclude: GlobSet,
    pub respect_gitignore: bool,
    pub dims: HashMap<String, i64>,
    pub output_format: Option<OutputFormat>,
    fixable: Vec<String>,
    unfixable: Vec<String>,
    /// `unsafe-fixes = true`: apply unsafe fixes with `--fix` too.
    pub unsafe_fixes: bool,
    /// `profiles`, joined to the configuration's folder.
    pub profiles: Vec<PathBuf>,
    /// `min-bytes`: measured findings below it are hidden (and the OOM202 threshold).
    pub min_bytes: Option<u64>,
    /// `min-static-bytes`: static findings whose result is estimated below it are not reported.
    pub min_static_bytes: u64,
    /// `path-map`: evidence path prefix -> repository path (joined to the configuration's folder).
    pub path_map: Vec<(String, PathBuf)>,
}

impl Settings {
    pub fn new(
        root: PathBuf,
        source: Option<PathBuf>,
        file: &ConfigFile,
        overrides: &Overrides,
    ) -> Result<Self, ConfigError> {
        let mut select = overrides
            .select
            .clone()
            .or_else(|| file.select.clone())
            .unwrap_or_else(default_selection);
        select.extend(file.extend_select.iter().flatten().cloned());
        select.extend(overrides.extend_select.iter().cloned());
        let mut ignore: Vec<String> = file.ignore.clone().unwrap_or_default();
        ignore.extend(overrides.ignore.iter().cloned());

        let glob_err = |p: &str, e: globset::Error| ConfigError(format!("invalid glob `{p}`: {e}"));
        let mut per_file_ignores = Vec::new();
        for (pattern, codes) in file.per_file_ignores.iter().flatten() {
            let mut b = GlobSetBuilder::new();
            b.add(Glob::new(pattern).map_err(|e| glob_err(pattern, e))?);
            if !pattern.contains('/') {
                b.add(Glob::new(&format!("**/{pattern}")).map_err(|e| glob_err(pattern, e))?);
            }
            per_file_ignores.push((b.build().map_err(|e| glob_err(pattern, e))?, codes.clone()));
        }
        let mut exclude = GlobSetBuilder::new();
        let base: Vec<String> = match &file.exclude {
            Some(list) => list.clone(),
            None => DEFAULT_EXCLUDES.iter().map(|s| s.to_string()).collect(),
        };
        for pattern in base.iter().chain(file.extend_exclude.iter().flatten()) {
            let trimmed = pattern.trim_end_matches('/');
            exclude.add(Glob::new(trimmed).map_err(|e| glob_err(pattern, e))?);
        }
        let mut dims: HashMap<String, i64> =
            file.dims.clone().unwrap_or_default().into_iter().collect();
        dims.extend(overrides.dims.iter().cloned());
        let profiles = file
            .profiles
            .iter()
            .flatten()
            .map(|p| root.join(p))
            .collect();
        let path_map = file
            .path_map
            .iter()
            .flatten()
            .map(|(from, to)| (from.clone(), root.join(to)))
            .collect();
        Ok(Settings {
            root,
            source,
            select,
            ignore,
            per_file_ignores,
            exclude: exclude
                .build()
                .map_err(|e| ConfigError(format!("exclude: {e}")))?,
            respect_gitignore: file.respect_gitignore.unwrap_or(true),
            dims,
            output_format: overrides.output_format.or(file.output_format),
            fixable: file
                .fixable
                .clone()
                .unwrap_or_else(|| vec!["ALL".to_string()]),
            unfixable: file.unfixable.clone().unwrap_or_default(),
            unsafe_fixes: file.unsafe_fixes.unwrap_or(false),
            profiles,
            min_bytes: file.min_bytes.map(|b| b.0),
            min_static_bytes: file
                .min_static_bytes
                .map_or(crate::rules::DEFAULT_MIN_STATIC_BYTES, |b| b.0),
            path_map,
        })
    }

    /// Is rule `code` enabled for the file at `path`?
    pub fn is_enabled(&self, code: &str, path: &Path) -> bool {
        let selected = self.select.iter().any(|s| selector_matches(s, code));
        if !selected || self.ignore.iter().any(|s| selector_matches(s, code)) {
            return false;
        }
        if !self.per_file_ignores.is_empty() {
            let abs = absolute(path);
            let rel = abs.strip_prefix(&self.root).unwrap_or(&abs);
            for (globs, codes) in &self.per_file_ignores {
                if globs.is_match(rel) && codes.iter().any(|s| selector_matches(s, code)) {
                    return false;
                }
            }
        }
        true
    }

    /// May rule `code`'s fixes be offered and applied (`fixable` / `unfixable`)?
    pub fn is_fixable(&self, code: &str) -> bool {
        self.fixable.iter().any(|s| selector_matches(s, code))
            && !self.unfixable.iter().any(|s| selector_matches(s, code))
    }

    /// Is `path` excluded (matched by full relative path or by its own name)?
    pub fn is_excluded(&self, path: &Path) -> bool {
        let rel = path.strip_prefix(&self.root).unwrap_or(path);
        if self.exclude.is_match(rel) {
            return true;
        }
        path.file_name()
            .is_some_and(|name| self.exclude.is_match(Path::new(name)))
    }
}

/// Finds the settings for each file: the closest config file above it (cached per folder), or
/// the one given with `--config`, or defaults with `--isolated`.
pub struct Resolver {
    overrides: Overrides,
    fixed: Option<Arc<Settings>>,
    cache: Mutex<HashMap<PathBuf, Arc<Settings>>>,
    default: Arc<Settings>,
    errors: Mutex<Vec<ConfigError>>,
}

impl Resolver {
    pub fn new(
        config: Option<&Path>,
        isolated: bool,
        overrides: Overrides,
    ) -> Result<Self, ConfigError> {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let default = Arc::new(Settings::new(
            cwd.clone(),
            None,
            &ConfigFile::default(),
            &overrides,
        )?);
        let fixed = match config {
            Some(path) => {
                let file = read_config_file(path)?.unwrap_or_default();
                let root = path
                    .parent()
                    .map(|p| {
                        if p.as_os_str().is_empty() {
                            cwd.clone()
                        } else {
                            absolute(p)
                        }
                    })
                    .unwrap_or(cwd);
                Some(Arc::new(Settings::new(
                    root,
                    Some(path.to_path_buf()),
                    &file,
                    &overrides,
                )?))
            }
            None if isolated => Some(default.clone()),
            None => None,
        };
        Ok(Resolver {
            overrides,
            fixed,
            cache: Mutex::new(HashMap::new()),
            default,
            errors: Mutex::new(Vec::new()),
        })
    }

    /// The settings for a file or folder.
    pub fn settings_for(&self, path: &Path) -> Arc<Settings> {
        if let Some(fixed) = &self.fixed {
            return fixed.clone();
        }
        let abs = absolute(path);
        let dir = if abs.is_dir() {
            abs
        } else {
            abs.parent().map(Path::to_path_buf).unwrap_or(abs)
        };
        self.settings_for_dir(&dir)
    }

    fn settings_for_dir(&self, dir: &Path) -> Arc<Settings> {
        if let Ok(cache) = self.cache.lock()
            && let Some(s) = cache.get(dir)
        {
            return s.clone();
        }
        let found = self.load_dir(dir);
        let settings = match found {
            Some(s) => s,
            None => match dir.parent() {
                Some(parent) => self.settings_for_dir(parent),
                None => self.default.clone(),
            },
        };
        if let Ok(mut cache) = self.cache.lock() {
            cache.insert(dir.to_path_buf(), settings.clone());
        }
        settings
    }

    fn load_dir(&self, dir: &Path) -> Option<Arc<Settings>> {
        for name in [".oomlint.toml", "oomlint.toml", "pyproject.toml"] {
            let candidate = dir.join(name);
            if !candidate.is_file() {
                continue;
            }
            match read_config_file(&candidate) {
                Ok(Some(file)) => {
                    match Settings::new(dir.to_path_buf(), Some(candidate), &file, &self.overrides)
                    {
                        Ok(s) => return Some(Arc::new(s)),
                        Err(e) => self.push_error(e),
                    }
                }
                Ok(None) => continue,
                Err(e) => self.push_error(e),
            }
            return Some(self.default.clone());
        }
        None
    }

    fn push_error(&self, e: ConfigError) {
        if let Ok(mut errors) = self.errors.lock()
            && !errors.iter().any(|x| x.0 == e.0)
        {
            errors.push(e);
        }
    }

    /// Config errors met while resolving (each is fatal: exit 2).
    pub fn take_errors(&self) -> Vec<ConfigError> {
        self.errors
            .lock()
            .map(|mut e| std::mem::take(&mut *e))
            .unwrap_or_default()
    }
}

/// An absolute path without touching the file system beyond the current directory.
pub fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_byte_size("512MiB"), Ok(512 * 1024 * 1024));
        assert_eq!(parse_byte_size("1 GB"), Ok(1_000_000_000));
        assert_eq!(parse_byte_size("4096"), Ok(4096));
        assert!(parse_byte_size("lots").is_err());
    }

    #[test]
    fn selectors() {
        assert!(selector_matches("OOM1", "OOM101"));
        assert!(selector_matches("ALL", "OOM001"));
        assert!(!selector_matches("OOM11", "OOM101"));
        assert!(check_selector("OOM999").is_err());
        assert!(check_selector("oom101").is_ok());
    }
}
