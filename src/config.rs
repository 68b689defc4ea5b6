//! Configuration: `[tool.oomlint]` in `pyproject.toml`, or `oomlint.toml` / `.oomlint.toml`. The
//! closest file to each linted file wins; command-line flags override it.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::Deserialize;

use crate::rules::RULES;
use crate::rules::size_estimate::{BindOrigin, LearnedDims, ModelDims};

mod levels;
mod walk_defaults;
pub use levels::{DEFAULT_TEST_FILES, FailOn, TestFiles};
pub use walk_defaults::{DEFAULT_EXCLUDES, DEFAULT_INCLUDES};

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
    pub include: Option<Vec<String>>,
    pub extend_include: Option<Vec<String>>,
    pub respect_gitignore: Option<bool>,
    pub fixable: Option<Vec<String>>,
    pub unfixable: Option<Vec<String>>,
    pub unsafe_fixes: Option<bool>,
    pub output_format: Option<OutputFormat>,
    pub dims: Option<BTreeMap<String, i64>>,
    pub profiles: Option<Vec<String>>,
    pub min_bytes: Option<ByteSize>,
    pub min_static_bytes: Option<ByteSize>,
    /// The device's memory (`"80GiB"`): findings whose allocation at the bound sizes exceeds it
    /// say so, and are errors.
    pub capacity: Option<ByteSize>,
    pub path_map: Option<BTreeMap<String, String>>,
    /// Where the summary cache lives (relative to the configuration's folder).
    pub cache_dir: Option<String>,
    /// Globs of test files, whose findings are warnings (replaces [`DEFAULT_TEST_FILES`]).
    pub test_files: Option<Vec<String>>,
    pub extend_test_files: Option<Vec<String>>,
    /// The lowest level that fails `check`: `error` (default) or `warning`.
    pub fail_on: Option<FailOn>,
}

#[derive(Deserialize)]
struct PyProject {
    tool: Option<PyProjectTool>,
}

#[derive(Deserialize)]
struct PyProjectTool {
    oomlint: Option<ConfigFile>,
}

/// A configuration error: the file, the key when known, and what is wrong.
#[derive(Debug, Clone)]
pub struct ConfigError {
    /// The config file (`None`: settings built from the command line).
    pub path: Option<PathBuf>,
    /// The key the error is about, when the message does not already name it.
    pub key: Option<String>,
    pub kind: ConfigErrorKind,
}

#[derive(Debug, Clone)]
pub enum ConfigErrorKind {
    /// The file could not be read.
    Read(Arc<std::io::Error>),
    /// Not valid TOML, or a value of the wrong type; `at` is the (line, column) when known.
    Syntax {
        at: Option<(usize, usize)>,
        message: String,
    },
    /// A value that reads but is not allowed (a bad selector, glob or size).
    Invalid(String),
}

impl ConfigError {
    fn invalid(message: String) -> Self {
        ConfigError {
            path: None,
            key: None,
            kind: ConfigErrorKind::Invalid(message),
        }
    }
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (at, message) = match &self.kind {
            ConfigErrorKind::Read(e) => {
                let path = self.path.as_deref().unwrap_or(Path::new(""));
                return write!(f, "{}: cannot read: {e}", path.display());
            }
            ConfigErrorKind::Syntax { at, message } => (*at, message),
            ConfigErrorKind::Invalid(message) => (None, message),
        };
        if let Some(path) = &self.path {
            write!(f, "{}", path.display())?;
            if let Some((line, col)) = at {
                write!(f, ":{line}:{col}")?;
            }
            let section = if is_pyproject(path) {
                " [tool.oomlint]"
            } else {
                ""
            };
            write!(f, ":{section} ")?;
        }
        if let Some(key) = &self.key {
            write!(f, "key `{key}`: ")?;
        }
        f.write_str(message)
    }
}

impl std::error::Error for ConfigError {}

fn is_pyproject(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "pyproject.toml")
}

/// Reads a config file; `Ok(None)` for a `pyproject.toml` without `[tool.oomlint]`.
pub fn read_config_file(path: &Path) -> Result<Option<ConfigFile>, ConfigError> {
    let error = |key: Option<String>, kind: ConfigErrorKind| ConfigError {
        path: Some(path.to_path_buf()),
        key,
        kind,
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| error(None, ConfigErrorKind::Read(Arc::new(e))))?;
    // toml names unknown keys but not the key of a value of the wrong type: take it from the line.
    let syntax = |e: toml::de::Error| -> ConfigError {
        let message = e.message().replace('\n', " ");
        let Some(span) = e.span() else {
            return error(None, ConfigErrorKind::Syntax { at: None, message });
        };
        let start = span.start.min(text.len());
        let before = &text[..start];
        let line = before.matches('\n').count() + 1;
        let col = before.len() - before.rfind('\n').map_or(0, |p| p + 1) + 1;
        let line_start = before.rfind('\n').map_or(0, |p| p + 1);
        let line_end = text[start..].find('\n').map_or(text.len(), |p| start + p);
        let key = match text[line_start..line_end].split_once('=') {
            Some((key, _)) if !key.trim().is_empty() && !key.contains('[') => {
                let key = key.trim().trim_matches('"');
                (!message.contains(key)).then(|| key.to_string())
            }
            _ => None,
        };
        let at = Some((line, col));
        error(key, ConfigErrorKind::Syntax { at, message })
    };
    let config = if is_pyproject(path) {
        let parsed: PyProject = toml::from_str(&text).map_err(syntax)?;
        match parsed.tool.and_then(|t| t.oomlint) {
            Some(c) => c,
            None => return Ok(None),
        }
    } else {
        toml::from_str::<ConfigFile>(&text).map_err(syntax)?
    };
    validate(&config).map_err(|(key, msg)| error(Some(key), ConfigErrorKind::Invalid(msg)))?;
    Ok(Some(config))
}

/// Checks what serde cannot: `Err((key, message))`.
fn validate(config: &ConfigFile) -> Result<(), (String, String)> {
    let lists: [(&str, &Option<Vec<String>>); 5] = [
        ("select", &config.select),
        ("ignore", &config.ignore),
        ("extend-select", &config.extend_select),
        ("fixable", &config.fixable),
        ("unfixable", &config.unfixable),
    ];
    for (key, list) in lists {
        for selector in list.iter().flatten() {
            check_selector(selector).map_err(|e| (key.to_string(), e))?;
        }
    }
    for (pattern, codes) in config.per_file_ignores.iter().flatten() {
        Glob::new(pattern).map_err(|e| {
            (
                "per-file-ignores".to_string(),
                format!("invalid glob `{pattern}`: {e}"),
            )
        })?;
        for code in codes {
            check_selector(code).map_err(|e| (format!("per-file-ignores.\"{pattern}\""), e))?;
        }
    }
    for (key, list) in [
        ("exclude", &config.exclude),
        ("extend-exclude", &config.extend_exclude),
        ("include", &config.include),
        ("extend-include", &config.extend_include),
        ("test-files", &config.test_files),
        ("extend-test-files", &config.extend_test_files),
    ] {
        for pattern in list.iter().flatten() {
            Glob::new(pattern)
                .map_err(|e| (key.to_string(), format!("invalid glob `{pattern}`: {e}")))?;
        }
    }
    if config.capacity.is_some_and(|c| c.0 == 0) {
        return Err((
            "capacity".to_string(),
            "expected a positive size such as \"80GiB\", got 0".to_string(),
        ));
    }
    for (name, value) in config.dims.iter().flatten() {
        if *value <= 0 {
            return Err((
                format!("dims.{name}"),
                format!("expected a positive integer, got {value}"),
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
    /// `--max-file-size` (default [`crate::source::DEFAULT_MAX_FILE_SIZE`]).
    pub max_file_size: Option<u64>,
    /// `--min-static-bytes`, over the configuration's `min-static-bytes`.
    pub min_static_bytes: Option<u64>,
    /// `--capacity`, over the configuration's `capacity`.
    pub capacity: Option<u64>,
    /// Sizes and site measurements learned from the attached profiles.
    pub learned: Arc<LearnedDims>,
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
    include: GlobSet,
    pub respect_gitignore: bool,
    pub dims: HashMap<String, i64>,
    /// Where each key of `dims` was given: this configuration file's `dims`, or `--dim`.
    pub dim_origins: HashMap<String, BindOrigin>,
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
    /// `capacity` (or `--capacity`): the device's memory in bytes.
    pub capacity: Option<u64>,
    /// What the attached profiles measured (`check --profile`): sizes by name, site bytes, static
    /// memory.
    pub learned: Arc<LearnedDims>,
    /// `path-map`: evidence path prefix -> repository path (joined to the configuration's folder).
    pub path_map: Vec<(String, PathBuf)>,
    /// Files bigger than this many bytes are not read (OOM002).
    pub max_file_size: u64,
    /// `cache-dir`, joined to the configuration's folder (None: `.oomlint_cache` there).
    pub cache_dir: Option<PathBuf>,
    /// `test-files` and `extend-test-files`: findings in these files are warnings.
    test_files: TestFiles,
    /// `fail-on`: the lowest level that fails `check`.
    pub fail_on: FailOn,
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

        let glob_err =
            |p: &str, e: globset::Error| ConfigError::invalid(format!("invalid glob `{p}`: {e}"));
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
        let mut include = GlobSetBuilder::new();
        let base: Vec<String> = match &file.include {
            Some(list) => list.clone(),
            None => DEFAULT_INCLUDES.iter().map(|s| s.to_string()).collect(),
        };
        for pattern in base.iter().chain(file.extend_include.iter().flatten()) {
            include.add(Glob::new(pattern).map_err(|e| glob_err(pattern, e))?);
        }
        let mut dims: HashMap<String, i64> =
            file.dims.clone().unwrap_or_default().into_iter().collect();
        dims.extend(overrides.dims.iter().cloned());
        let config_name: Arc<str> = Arc::from(
            source
                .as_deref()
                .and_then(Path::file_name)
                .map_or_else(|| "file".into(), |n| n.to_string_lossy()),
        );
        let mut dim_origins: HashMap<String, BindOrigin> = file
            .dims
            .iter()
            .flatten()
            .map(|(k, _)| (k.clone(), BindOrigin::Config(config_name.clone())))
            .collect();
        dim_origins.extend(
            overrides
                .dims
                .iter()
                .map(|(k, _)| (k.clone(), BindOrigin::Flag)),
        );
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
        let cache_dir = file.cache_dir.as_ref().map(|d| root.join(d));
        Ok(Settings {
            root,
            source,
            select,
            ignore,
            per_file_ignores,
            exclude: exclude
                .build()
                .map_err(|e| ConfigError::invalid(format!("exclude: {e}")))?,
            include: include
                .build()
                .map_err(|e| ConfigError::invalid(format!("include: {e}")))?,
            respect_gitignore: file.respect_gitignore.unwrap_or(true),
            dims,
            dim_origins,
            output_format: overrides.output_format.or(file.output_format),
            fixable: file
                .fixable
                .clone()
                .unwrap_or_else(|| vec!["ALL".to_string()]),
            unfixable: file.unfixable.clone().unwrap_or_default(),
            unsafe_fixes: file.unsafe_fixes.unwrap_or(false),
            profiles,
            min_bytes: file.min_bytes.map(|b| b.0),
            min_static_bytes: overrides
                .min_static_bytes
                .or(file.min_static_bytes.map(|b| b.0))
                .unwrap_or(crate::rules::DEFAULT_MIN_STATIC_BYTES),
            capacity: overrides.capacity.or(file.capacity.map(|b| b.0)),
            learned: overrides.learned.clone(),
            path_map,
            max_file_size: overrides
                .max_file_size
                .unwrap_or(crate::source::DEFAULT_MAX_FILE_SIZE),
            cache_dir,
            test_files: TestFiles::new(
                file.test_files.as_deref(),
                file.extend_test_files.as_deref(),
            )
            .map_err(ConfigError::invalid)?,
            fail_on: file.fail_on.unwrap_or_default(),
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

    /// Does a folder walk lint the file at `path` (`include`, matched by full relative path or by
    /// its own name)? A file named on the command line is linted whatever its name.
    pub fn is_included(&self, path: &Path) -> bool {
        let rel = path.strip_prefix(&self.root).unwrap_or(path);
        self.include.is_match(rel)
            || path
                .file_name()
                .is_some_and(|name| self.include.is_match(Path::new(name)))
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

/// The config files looked for in each folder, first found wins.
pub const CONFIG_NAMES: [&str; 3] = [".oomlint.toml", "oomlint.toml", "pyproject.toml"];

/// Finds the settings for each file: the closest config file above it (cached per folder), or
/// the one given with `--config`, or defaults with `--isolated`.
pub struct Resolver {
    overrides: Overrides,
    fixed: Option<Arc<Settings>>,
    /// Per folder: its settings, or the error of the config file that governs it.
    cache: Mutex<HashMap<PathBuf, Result<Arc<Settings>, ConfigError>>>,
    default: Arc<Settings>,
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
        })
    }

    /// The settings for a file or folder, or the error of the config file that governs it.
    pub fn try_settings_for(&self, path: &Path) -> Result<Arc<Settings>, ConfigError> {
        if let Some(fixed) = &self.fixed {
            return Ok(fixed.clone());
        }
        let abs = absolute(path);
        let dir = if abs.is_dir() {
            abs
        } else {
            abs.parent().map(Path::to_path_buf).unwrap_or(abs)
        };
        self.settings_for_dir(&dir)
    }

    /// The settings for a file or folder; the defaults where its config file is broken (for
    /// callers that have reported, or cannot report, that error).
    pub fn settings_for(&self, path: &Path) -> Arc<Settings> {
        self.try_settings_for(path)
            .unwrap_or_else(|_| self.default.clone())
    }

    /// The settings without any config file (command-line overrides only).
    pub fn defaults(&self) -> Arc<Settings> {
        self.default.clone()
    }

    fn settings_for_dir(&self, dir: &Path) -> Result<Arc<Settings>, ConfigError> {
        if let Ok(cache) = self.cache.lock()
            && let Some(s) = cache.get(dir)
        {
            return s.clone();
        }
        let settings = match self.load_dir(dir) {
            Some(s) => s,
            None => match dir.parent() {
                Some(parent) => self.settings_for_dir(parent),
                None => Ok(self.default.clone()),
            },
        };
        if let Ok(mut cache) = self.cache.lock() {
            cache.insert(dir.to_path_buf(), settings.clone());
        }
        settings
    }

    /// The settings of the config file in `dir`, if it has one.
    fn load_dir(&self, dir: &Path) -> Option<Result<Arc<Settings>, ConfigError>> {
        for name in CONFIG_NAMES {
            let candidate = dir.join(name);
            if !candidate.is_file() {
                continue;
            }
            return match read_config_file(&candidate) {
                Ok(Some(file)) => Some(
                    Settings::new(dir.to_path_buf(), Some(candidate), &file, &self.overrides)
                        .map(Arc::new),
                ),
                // A pyproject.toml without `[tool.oomlint]`: look at the next name.
                Ok(None) => continue,
                Err(e) => Some(Err(e)),
            };
        }
        None
    }
}

/// An absolute path without touching the file system beyond the current directory.
pub fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The sizes a model's configuration states for the code in `dir`: the integer fields of a
/// `config.json` beside the code (top level, then its `text_config`), and the integer keyword
/// defaults of the configuration classes in the folder's `configuration_*.py` files, each named
/// after the file it came from. `config.json` wins over a class default. Cached per folder.
pub fn model_dims_for(dir: &Path) -> Arc<ModelDims> {
    static CACHE: std::sync::OnceLock<Mutex<HashMap<PathBuf, Arc<ModelDims>>>> =
        std::sync::OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(found) = cache.lock().ok().and_then(|c| c.get(dir).cloned()) {
        return found;
    }
    let dims = Arc::new(read_model_dims(dir));
    if let Ok(mut c) = cache.lock() {
        c.insert(dir.to_path_buf(), dims.clone());
    }
    dims
}

fn read_model_dims(dir: &Path) -> ModelDims {
    let mut values: HashMap<String, (i64, Arc<str>)> = HashMap::new();
    if let Ok(text) = std::fs::read_to_string(dir.join("config.json"))
        && let Ok(serde_json::Value::Object(top)) = serde_json::from_str::<serde_json::Value>(&text)
    {
        let source: Arc<str> = Arc::from("config.json");
        let nested = match top.get("text_config") {
            Some(serde_json::Value::Object(inner)) => Some(inner),
            _ => None,
        };
        for map in std::iter::once(&top).chain(nested) {
            for (name, value) in map {
                if let Some(v) = value.as_i64() {
                    values.entry(name.clone()).or_insert((v, source.clone()));
                }
            }
        }
    }
    let mut config_files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("configuration_") && n.ends_with(".py"))
        })
        .collect();
    config_files.sort();
    for path in config_files {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("configuration");
        let source: Arc<str> = Arc::from(name);
        for (dim, value) in crate::analysis::model_config::config_class_defaults(&text) {
            values.entry(dim).or_insert((value, source.clone()));
        }
    }
    ModelDims { values }
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
