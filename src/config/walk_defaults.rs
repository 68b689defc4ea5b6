//! What a folder walk lints and skips when the configuration does not say.

/// The files a folder walk lints unless `include` is overridden (ruff's, less `pyproject.toml`).
pub const DEFAULT_INCLUDES: &[&str] = &["*.py", "*.pyi", "*.ipynb"];

/// Folders never linted unless `exclude` is overridden: ruff's defaults. `build` matters most: a
/// wheel or `setup.py build` leaves a second copy of the sources under `build/lib/`, whose
/// findings would each be reported twice.
pub const DEFAULT_EXCLUDES: &[&str] = &[
    ".bzr",
    ".direnv",
    ".eggs",
    ".git",
    ".git-rewrite",
    ".hg",
    ".ipynb_checkpoints",
    ".mypy_cache",
    ".nox",
    ".oomlint_cache",
    ".pants.d",
    ".pyenv",
    ".pytest_cache",
    ".pytype",
    ".ruff_cache",
    ".svn",
    ".tox",
    ".venv",
    ".vscode",
    "__pypackages__",
    "_build",
    "buck-out",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    "venv",
];
