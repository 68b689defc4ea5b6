//! Placing evidence in the linted tree: which linted file an evidence path names, which line of
//! it a frame means, and which finding (or bare line) a measurement lands on.
//!
//! - a path in the evidence (absolute on the training machine, or relative to `sys.path`) names
//!   the linted file with the longest common path suffix, after `path-map` prefixes are applied;
//! - an exact line is trusted when its text still matches the text the evidence printed (OOM
//!   tracebacks print it), else the nearest line with the same text within [`LINE_WINDOW`] lines
//!   is taken; without printed text, a line inside the file is taken as it is;
//! - a function-level frame (the function's first line and the name of the method being called)
//!   is matched to a finding inside that function, whose rows come from the parser.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use crate::analysis::op_sites::{FunctionOps, function_ops, site_for};
use crate::diagnostic::Diagnostic;
use crate::evidence::report::user_frame;
use crate::evidence::{Frame, LineKind};
use crate::model::LintResult;
use crate::rules::RuleKind;
use crate::source::{self, FunctionRows, Lines};

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
    /// A function-level frame whose operator could have run at several expressions of the
    /// function: the `def` line is kept.
    AmbiguousInFunction,
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

/// For a function-level frame: the candidate inside the function whose first line is `def_line`
/// and whose method name equals `callee` (`bool` for `.bool()`). Candidates are `(row, method
/// name)`; the first match wins.
pub fn pick_in_function(
    functions: &[FunctionRows],
    def_line: u32,
    callee: &str,
    candidates: &[(u32, String)],
) -> Option<usize> {
    let function = functions.iter().find(|f| f.starts_at(def_line as usize))?;
    candidates
        .iter()
        .position(|(row, name)| function.contains(*row as usize) && name == callee)
}

/// The method or function name of a sink's text: `.bool()` -> `bool`, `torch.clone(x)` -> `clone`.
pub fn sink_name(text: &str) -> String {
    let head = text.split('(').next().unwrap_or(text);
    let last = head.rsplit('.').next().unwrap_or(head);
    last.chars()
        .filter(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// Whether `d` is a static finding (a measurement may attach to it; profile findings are made
/// from measurements).
pub fn is_static(d: &Diagnostic) -> bool {
    d.rule.kind == RuleKind::Static
}

/// Whether the statement of `d` holds the 1-based `row`.
pub fn holds_row(d: &Diagnostic, row: usize) -> bool {
    let (first, last) = d.stmt_rows.unwrap_or((d.location.row, d.end_location.row));
    (first..=last).contains(&row)
}

/// Where a measurement lands.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// An existing finding (report index, diagnostic index).
    Diag(usize, usize),
    /// A line of a linted file (file index, 1-based row).
    Line(usize, u32),
    /// Outside the linted tree: the frame as the evidence names it.
    Unlocated(String, u32),
}

/// What the parser says about one linted file, for placing evidence in it.
pub struct Syntax {
    pub functions: Vec<FunctionRows>,
    /// Where each operator of each function is written.
    pub ops: Vec<FunctionOps>,
    lines: Lines,
}

/// The linted tree as evidence sees it: files by path, their text and syntax read on demand, and
/// the lint result's findings per file.
pub struct Joiner<'a> {
    pub files: &'a [super::LintedFile],
    abs: Vec<PathBuf>,
    pub index: PathIndex,
    texts: Vec<Option<Option<Arc<str>>>>,
    syntax: Vec<Option<Option<Syntax>>>,
    /// File index -> report index.
    pub report_of: HashMap<usize, usize>,
    /// Report index -> `(row, sink name)` per diagnostic, for function-level frames.
    sinks: HashMap<usize, Vec<(u32, String)>>,
    /// Files bigger than this are not read (the linter's `max-file-size`).
    max_file_size: u64,
}

impl<'a> Joiner<'a> {
    pub fn new(
        result: &LintResult,
        files: &'a [super::LintedFile],
        path_map: &[(String, PathBuf)],
        max_file_size: u64,
    ) -> Self {
        let abs: Vec<PathBuf> = files
            .iter()
            .map(|f| crate::config::absolute(&f.path))
            .collect();
        let by_display: HashMap<&str, usize> = result
            .reports
            .iter()
            .enumerate()
            .map(|(i, r)| (&*r.display, i))
            .collect();
        let report_of: HashMap<usize, usize> = files
            .iter()
            .enumerate()
            .filter_map(|(fi, f)| Some((fi, *by_display.get(&*f.display)?)))
            .collect();
        Joiner {
            files,
            index: PathIndex::new(&abs, path_map),
            abs,
            texts: vec![None; files.len()],
            syntax: (0..files.len()).map(|_| None).collect(),
            report_of,
            sinks: HashMap::new(),
            max_file_size,
        }
    }

    /// The text of file `fi`, read once.
    pub fn text(&mut self, fi: usize) -> Option<Arc<str>> {
        if self.texts[fi].is_none() {
            let t = match &self.files[fi].text {
                Some(t) => Some(t.clone()),
                None => source::read_source(&self.abs[fi], self.max_file_size)
                    .ok()
                    .map(|s| Arc::from(s.text)),
            };
            self.texts[fi] = Some(t);
        }
        self.texts[fi].clone().flatten()
    }

    /// The functions and suppression comments of file `fi`, parsed once.
    pub fn syntax(&mut self, fi: usize) -> Option<&Syntax> {
        if self.syntax[fi].is_none() {
            let syntax = self.text(fi).map(|text| {
                let parsed = source::parse_module(&text, false);
                let lines = Lines::new(&text);
                Syntax {
                    functions: source::function_rows(&parsed, &lines),
                    ops: function_ops(&parsed.body),
                    lines,
                }
            });
            self.syntax[fi] = Some(syntax);
        }
        self.syntax[fi].as_ref().and_then(Option::as_ref)
    }

    /// The static finding at `row` of file `fi` (its statement holds the row), if any.
    fn diag_at(&self, result: &LintResult, fi: usize, row: u32) -> Option<Target> {
        let ri = *self.report_of.get(&fi)?;
        let row = row as usize;
        let diags = &result.reports[ri].diagnostics;
        diags
            .iter()
            .position(|d| d.location.row == row && is_static(d))
            .or_else(|| diags.iter().position(|d| holds_row(d, row) && is_static(d)))
            .map(|di| Target::Diag(ri, di))
    }

    fn sinks_of(&mut self, result: &LintResult, ri: usize, fi: usize) -> Vec<(u32, String)> {
        if let Some(s) = self.sinks.get(&ri) {
            return s.clone();
        }
        let text = self.text(fi);
        let list: Vec<(u32, String)> = result.reports[ri]
            .diagnostics
            .iter()
            .map(|d| {
                let name = text
                    .as_deref()
                    .and_then(|t| t.get(d.range.start().to_usize()..d.range.end().to_usize()))
                    .filter(|_| is_static(d))
                    .map(sink_name)
                    .unwrap_or_default();
                (d.location.row as u32, name)
            })
            .collect();
        self.sinks.insert(ri, list.clone());
        list
    }

    /// For a function-level frame (only the `def` row is known): the row of the one expression
    /// in that function that can have run `op`, or that several can (`Err`).
    fn row_of_op(&mut self, fi: usize, def_row: u32, op: &str) -> Option<Result<u32, ()>> {
        let syntax = self.syntax(fi)?;
        let row = |offset| syntax.lines.row(offset) as u32;
        // The innermost function whose rows hold the frame's row is the frame's own function
        // (the row is its first decorator or its `def`).
        let function = syntax
            .ops
            .iter()
            .filter(|f| row(f.range.start()) <= def_row && def_row <= row(f.range.end()))
            .min_by_key(|f| f.range.len())?;
        match site_for(function, op) {
            Ok(Some(site)) => Some(Ok(row(site.range.start()))),
            Ok(None) => None,
            Err(_) => Some(Err(())),
        }
    }

    /// The first frame of `stack` (innermost first) that lands in the linted tree. `op` is the
    /// operator the evidence measured, which places a function-level frame on its expression.
    pub fn locate(
        &mut self,
        result: &LintResult,
        stack: &[Frame],
        op: Option<&str>,
    ) -> Option<(Target, Frame, Option<LineMatch>)> {
        for f in stack {
            let Some(fi) = self.index.resolve(&f.file) else {
                continue;
            };
            let Some(text) = self.text(fi) else {
                continue;
            };
            if f.line_kind == LineKind::FunctionDef
                && let Some(callee) = &f.callee
                && let Some(&ri) = self.report_of.get(&fi)
            {
                let sinks = self.sinks_of(result, ri, fi);
                let functions = self.syntax(fi).map_or(&[][..], |s| &s.functions);
                if let Some(di) = pick_in_function(functions, f.line, callee, &sinks) {
                    return Some((Target::Diag(ri, di), f.clone(), Some(LineMatch::InFunction)));
                }
            }
            if f.line_kind == LineKind::FunctionDef
                && let Some(op) = op
            {
                match self.row_of_op(fi, f.line, op) {
                    Some(Ok(row)) => {
                        let target = self
                            .diag_at(result, fi, row)
                            .unwrap_or(Target::Line(fi, row));
                        return Some((target, f.clone(), Some(LineMatch::InFunction)));
                    }
                    Some(Err(())) => {
                        if let Some((row, _)) = resolve_line(&text, f.line, None) {
                            let how = Some(LineMatch::AmbiguousInFunction);
                            return Some((Target::Line(fi, row), f.clone(), how));
                        }
                    }
                    None => {}
                }
            }
            let Some((row, how)) = resolve_line(&text, f.line, None) else {
                continue;
            };
            let target = if f.line_kind == LineKind::Exact {
                self.diag_at(result, fi, row)
                    .unwrap_or(Target::Line(fi, row))
            } else {
                Target::Line(fi, row)
            };
            return Some((target, f.clone(), Some(how)));
        }
        let f = user_frame(stack)?;
        Some((Target::Unlocated(f.file.clone(), f.line), f.clone(), None))
    }
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
        let src = "class A:\n    def f(\n        self,\n    ):\n        m = m.expand(2, 3)\n        m = m.bool()\n        return m\n\n    @dec\n    def g(self):\n        return x.bool()\n";
        let functions = source::function_rows(&source::parse_module(src, false), &Lines::new(src));
        let cands = vec![(6, "bool".to_string()), (11, "bool".to_string())];
        assert_eq!(pick_in_function(&functions, 2, "bool", &cands), Some(0));
        // A decorated function is named by its first decorator (or its `def`).
        assert_eq!(pick_in_function(&functions, 9, "bool", &cands), Some(1));
        assert_eq!(pick_in_function(&functions, 10, "bool", &cands), Some(1));
        assert_eq!(pick_in_function(&functions, 2, "float", &cands), None);
        assert_eq!(pick_in_function(&functions, 5, "bool", &cands), None);
        assert_eq!(sink_name(".bool()"), "bool");
        assert_eq!(sink_name("torch.clone(x)"), "clone");
        assert_eq!(sink_name(".to(torch.bool)"), "to");
    }
}
