//! Module names of linted files, so that imports between them can be followed.

use std::path::Path;
use std::sync::Arc;

/// Where a file sits in the Python package tree.
#[derive(Clone, Debug, Default)]
pub struct ModuleInfo {
    /// Dotted module name (`pkg.sub.mod`; `pkg.sub` for `pkg/sub/__init__.py`).
    pub qualname: String,
    /// The file is a package's `__init__.py` (relative imports start at the package itself).
    pub is_package: bool,
    /// The file's path as shown to the user (chains into this file name it).
    pub display_path: Arc<str>,
}

impl ModuleInfo {
    /// Computes the module name of `path` by walking up the folders that hold an `__init__.py`
    /// (`has_init` answers whether a folder has one, cached by the caller). Inside a project
    /// `root` the folders without an `__init__.py` count as namespace packages up to the root: `root/pkg/masks.py` is
    /// `pkg.masks` (and `root/src/pkg/masks.py` is `src.pkg.masks`, which a lookup by the dotted
    /// suffix `pkg.masks` finds: see `SummaryTable::get`).
    pub fn for_path_in(
        path: &Path,
        display_path: Arc<str>,
        has_init: &dyn Fn(&Path) -> bool,
        root: Option<&Path>,
    ) -> Self {
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("")
            .to_string();
        let is_package = stem == "__init__";
        let mut parts: Vec<String> = Vec::new();
        if !is_package {
            parts.push(stem);
        }
        let mut dir = path.parent();
        while let Some(d) = dir {
            // A namespace package is a folder whose name Python can import (`src`, `pkg`; not
            // `transformers-4.40.0`).
            let namespace = root.is_some_and(|r| d != r && d.starts_with(r))
                && d.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(is_identifier);
            if d.as_os_str().is_empty() || !(namespace || has_init(d)) {
                break;
            }
            match d.file_name().and_then(|n| n.to_str()) {
                Some(name) => parts.push(name.to_string()),
                None => break,
            }
            dir = d.parent();
        }
        parts.reverse();
        ModuleInfo {
            qualname: parts.join("."),
            is_package,
            display_path,
        }
    }

    /// The absolute module named by `from <dots><module> import ...`.
    pub fn resolve_from(&self, module: Option<&str>, level: u32) -> Option<String> {
        if level == 0 {
            return module.map(str::to_string);
        }
        let mut base: Vec<&str> = self.qualname.split('.').filter(|s| !s.is_empty()).collect();
        // `.` is the package holding this module; for a package's `__init__` it is the package.
        let up = if self.is_package { level - 1 } else { level };
        for _ in 0..up {
            base.pop()?;
        }
        let mut out = base.join(".");
        if let Some(m) = module {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(m);
        }
        Some(out)
    }
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c == '_' || c.is_alphabetic())
        && chars.all(|c| c == '_' || c.is_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespace_packages_inside_the_root() {
        let no_init = |_: &Path| false;
        let root = Path::new("/p");
        let ns = ModuleInfo::for_path_in(
            Path::new("/p/pkg/masks.py"),
            "x".into(),
            &no_init,
            Some(root),
        );
        assert_eq!(ns.qualname, "pkg.masks");
        let versioned = ModuleInfo::for_path_in(
            Path::new("/p/lib-1.0/pkg/masks.py"),
            "x".into(),
            &|d: &Path| d == Path::new("/p/lib-1.0/pkg"),
            Some(root),
        );
        assert_eq!(versioned.qualname, "pkg.masks");
        let top =
            ModuleInfo::for_path_in(Path::new("/p/train.py"), "x".into(), &no_init, Some(root));
        assert_eq!(top.qualname, "train");
        let outside =
            ModuleInfo::for_path_in(Path::new("/p/pkg/masks.py"), "x".into(), &no_init, None);
        assert_eq!(outside.qualname, "masks");
        let with_init = |d: &Path| d == Path::new("/q/pkg");
        let pkg = ModuleInfo::for_path_in(Path::new("/q/pkg/m.py"), "x".into(), &with_init, None);
        assert_eq!(pkg.qualname, "pkg.m");
    }

    #[test]
    fn relative_imports() {
        let m = ModuleInfo {
            qualname: "pkg.sub.model".into(),
            is_package: false,
            display_path: "x".into(),
        };
        assert_eq!(
            m.resolve_from(Some("helpers"), 1).as_deref(),
            Some("pkg.sub.helpers")
        );
        assert_eq!(
            m.resolve_from(Some("utils"), 2).as_deref(),
            Some("pkg.utils")
        );
        assert_eq!(m.resolve_from(None, 1).as_deref(), Some("pkg.sub"));
        assert_eq!(m.resolve_from(Some("torch"), 0).as_deref(), Some("torch"));
        let p = ModuleInfo {
            qualname: "pkg".into(),
            is_package: true,
            display_path: "x".into(),
        };
        assert_eq!(
            p.resolve_from(Some("masks"), 1).as_deref(),
            Some("pkg.masks")
        );
    }
}
