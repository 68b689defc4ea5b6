//! Joining evidence to the linted tree, with paths, line numbers and the text of source lines
//! only (no Python parsing):
//!
//! - a path in the evidence (absolute on the training machine, or relative to `sys.path`) names
//!   the linted file with the longest common path suffix, after `path-map` prefixes are applied;
//! - an exact line is trusted when its text still matches the text the evidence printed (OOM
//!   tracebacks print it), else the nearest line with the same text within [`LINE_WINDOW`] lines
//!   is taken; without printed text, a line inside the file is taken as it is;
//! - a function-level frame (the `def` line and the name of the method being called) is matched
//!   to a candidate position inside that function's body, found by indentation.

use std::path::{Component, Path, PathBuf};

/// How far (in lines) a printed source line may have moved since the evidence was recorded.
pub const LINE_WINDOW: u32 = 20;

/// Splits a path (either separator) into its normal components, resolving `.` and `..` lexically.
pub fn components(path: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for part in path.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            p => out.push(p.to_string()),
        }
    }
    out
}

fn path_components(path: &Path) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in path.components() {
        match c {
            Component::Normal(p) => out.push(p.to_string_lossy().into_owned()),
            Component::ParentDir => {
                out.pop();
            }
            _ => {}
        }
    }
    out
}

/// Number of equal trailing components.
fn common_suffix(a: &[String], b: &[String]) -> usize {
    a.iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
}

/// The linted files, by their components, and the `path-map` rules.
#[derive(Debug, Default)]
pub struct PathIndex {
    files: Vec<Vec<String>>,
    /// (evidence prefix components, repository path components), longest prefix first.
    path_map: Vec<(Vec<String>, Vec<String>)>,
}

impl PathIndex {
    /// `files` are the linted files (absolute paths); `path_map` maps an evidence path prefix to
    /// a repository path (absolute, or already joined to the configuration's folder).
    pub fn new(files: &[PathBuf], path_map: &[(String, PathBuf)]) -> Self {
        let mut map: Vec<(Vec<String>, Vec<String>)> = path_map
            .iter()
            .map(|(from, to)| (components(from), path_components(to)))
            .filter(|(from, _)| !from.is_empty())
            .collect();
        map.sort_by_key(|(from, _)| std::cmp::Reverse(from.len()));
        PathIndex {
            files: files.iter().map(|f| path_components(f)).collect(),
            path_map: map,
        }
    }

    /// The index (into the `files` given to [`PathIndex::new`]) of the linted file that an
    /// evidence path names, or `None` when no file matches or two match equally well.
    pub fn resolve(&self, evidence_path: &str) -> Option<usize> {
        let comps = components(evidence_path);
        if comps.is_empty() {
            return None;
        }
        for (from, to) in &self.path_map {
            if comps.len() >= from.len() && comps[..from.len()] == from[..] {
                let mut mapped = to.clone();
                mapped.extend_from_slice(&comps[from.len()..]);
                if let Some(i) = self.files.iter().position(|f| *f == mapped) {
                    return Some(i);
                }
                return self.by_suffix(&mapped);
            }
        }
        self.by_suffix(&comps)
    }

    fn by_suffix(&self, comps: &[String]) -> Option<usize> {
        let mut best: Option<(usize, usize)> = None;
        let mut tie = false;
        for (i, f) in self.files.iter().enumerate() {
            let n = common_suffix(f, comps);
            if n == 0 {
                continue;
            }
            match best {
                Some((_, b)) if n < b => {}
                Some((_, b)) if n == b => tie = true,
                _ => {
                    best = Some((i, n));
                    tie = false;
                }
            }
        }
        if tie { None } else { best.map(|(i, _)| i) }
    }
}

/// How a line of the evidence was placed in the current source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LineMatch {
    /// The printed text matches the line.
    Exact,
    /// The printed text was found at another line nearby (the file changed since).
    Moved,
    /// Nothing to compare with (no printed text): the line is taken as it is.
    Unchecked,
    /// A function-level frame matched to a call inside the function.
    InFunction,
}

fn norm(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Places 1-based `line` of the evidence in `source`: see the module documentation.
pub fn resolve_line(source: &str, line: u32, printed: Option<&str>) -> Option<(u32, LineMatch)> {
    let lines: Vec<&str> = source.lines().collect();
    if line == 0 {
        return None;
    }
    let Some(printed) = printed.map(norm).filter(|p| !p.is_empty()) else {
        return (line as usize <= lines.len()).then_some((line, LineMatch::Unchecked));
    };
    let matches = |l: u32| -> bool {
        l >= 1 && (l as usize) <= lines.len() && norm(lines[l as usize - 1]) == printed
    };
    if matches(line) {
        return Some((line, LineMatch::Exact));
    }
    for d in 1..=LINE_WINDOW {
        for l in [line.checked_sub(d), line.checked_add(d)]
            .into_iter()
            .flatten()
        {
            if matches(l) {
                return Some((l, LineMatch::Moved));
            }
        }
    }
    None
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// The 1-based rows `(def, last)` of the function whose `def` (or first decorator) is at
/// `def_line`, by indentation.
pub fn function_rows(source: &str, def_line: u32) -> Option<(u32, u32)> {
    let lines: Vec<&str> = source.lines().collect();
    let mut def = def_line as usize;
    if def == 0 || def > lines.len() {
        return None;
    }
    // Decorated functions report their first decorator line.
    while def <= lines.len() && lines[def - 1].trim_start().starts_with('@') {
        def += 1;
    }
    let head = lines.get(def - 1)?.trim_start();
    if !(head.starts_with("def ") || head.starts_with("async def ")) {
        return None;
    }
    let base = indent(lines[def - 1]);
    let mut last = def;
    for (i, l) in lines.iter().enumerate().skip(def) {
        let t = l.trim_start();
        if t.is_empty() || t.starts_with('#') || t.starts_with(')') || t.starts_with(']') {
            continue;
        }
        if indent(l) <= base {
            break;
        }
        last = i + 1;
    }
    Some((def_line, last as u32))
}

/// For a function-level frame: the candidate inside the function at `def_line` whose method
/// name equals `callee` (`bool` for `.bool()`). Candidates are `(row, method name)`; the first
/// match wins.
pub fn pick_in_function(
    source: &str,
    def_line: u32,
    callee: &str,
    candidates: &[(u32, String)],
) -> Option<usize> {
    let (first, last) = function_rows(source, def_line)?;
    candidates
        .iter()
        .position(|(row, name)| (first..=last).contains(row) && name == callee)
}

/// The method or function name of a sink's text: `.bool()` -> `bool`, `torch.clone(x)` -> `clone`.
pub fn sink_name(text: &str) -> String {
    let head = text.split('(').next().unwrap_or(text);
    let last = head.rsplit('.').next().unwrap_or(head);
    last.chars()
        .filter(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffix_and_path_map() {
        let files = vec![
            PathBuf::from("/repo/src/model/modeling_tiny.py"),
            PathBuf::from("/repo/tests/modeling_tiny.py"),
            PathBuf::from("/repo/tiny_model.py"),
        ];
        let idx = PathIndex::new(&files, &[]);
        assert_eq!(idx.resolve("tiny_model.py"), Some(2));
        assert_eq!(idx.resolve("/workspace/model/modeling_tiny.py"), Some(0));
        // Only the file name in common with both: ambiguous.
        assert_eq!(idx.resolve("/workspace/x/modeling_tiny.py"), None);
        assert_eq!(idx.resolve("other.py"), None);
        let idx = PathIndex::new(
            &files,
            &[("/workspace/x/".to_string(), PathBuf::from("/repo/tests"))],
        );
        assert_eq!(idx.resolve("/workspace/x/modeling_tiny.py"), Some(1));
        assert_eq!(components("/a/./b/../c\\d.py"), ["a", "c", "d.py"]);
    }

    #[test]
    fn lines_by_text() {
        let src = "a = 1\nb = 2\n\nx = y.bool()\n";
        assert_eq!(
            resolve_line(src, 4, Some("  x = y.bool()")),
            Some((4, LineMatch::Exact))
        );
        assert_eq!(
            resolve_line(src, 2, Some("x = y.bool()")),
            Some((4, LineMatch::Moved))
        );
        assert_eq!(resolve_line(src, 1, Some("z = 3")), None);
        assert_eq!(resolve_line(src, 3, None), Some((3, LineMatch::Unchecked)));
        assert_eq!(resolve_line(src, 9, None), None);
    }

    #[test]
    fn function_frames() {
        let src = "class A:\n    def f(\n        self,\n    ):\n        m = m.expand(2, 3)\n        m = m.bool()\n        return m\n\n    def g(self):\n        return x.bool()\n";
        assert_eq!(function_rows(src, 2), Some((2, 7)));
        let cands = vec![(6, "bool".to_string()), (10, "bool".to_string())];
        assert_eq!(pick_in_function(src, 2, "bool", &cands), Some(0));
        assert_eq!(pick_in_function(src, 9, "bool", &cands), Some(1));
        assert_eq!(pick_in_function(src, 2, "float", &cands), None);
        assert_eq!(sink_name(".bool()"), "bool");
        assert_eq!(sink_name("torch.clone(x)"), "clone");
        assert_eq!(sink_name(".to(torch.bool)"), "to");
    }
}
