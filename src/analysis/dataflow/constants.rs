//! Sizes the code states as constants: an integer literal bound once at module level
//! (`NUM_HEADS = 4`, `TOPK: int = 16`), in a class body (`num_heads = 4`), or on `self` in
//! `__init__` and nowhere else (`self.topk = 8`). A site whose shape names one carries it
//! (`Site::constants`), so that its size is priced at the value the code wrote, with the line it
//! came from, rather than at a default guessed from the name.

use std::collections::{HashMap, HashSet};

use crate::analysis::facts::{Dim, Shape, SymExpr};
use crate::analysis::{ConstantKind, NamedConstant};
use crate::source::ast::{self, Expr, Stmt};
use crate::source::{Ranged, nested_blocks};

use super::stmt::Walker;
use super::word_offsets;
use crate::analysis::shape_infer::{collapse_code, literal_int};

/// One constant's declaration: its value, the assignment as written and where it starts.
#[derive(Clone, Debug)]
pub(super) struct ConstDecl {
    value: i64,
    written: String,
    offset: u32,
    kind: ConstantKind,
}

/// The name and positive integer literal of `NAME = 4` / `NAME: int = 4`.
fn literal_binding(stmt: &Stmt) -> Option<(&Expr, i64)> {
    let (target, value) = match stmt {
        Stmt::Assign(a) => match a.targets.as_slice() {
            [target] => (target, &*a.value),
            _ => return None,
        },
        Stmt::AnnAssign(a) => (&*a.target, a.value.as_deref()?),
        _ => return None,
    };
    let value = literal_int(value).filter(|v| *v >= 1)?;
    Some((target, value))
}

fn decl(stmt: &Stmt, value: i64, text: &str) -> ConstDecl {
    ConstDecl {
        value,
        written: collapse_code(text.get(stmt.range().to_std_range()).unwrap_or("")),
        offset: stmt.range().start().to_u32(),
        kind: ConstantKind::Literal,
    }
}

/// Every name a module-level statement binds (assignment and loop targets), for counting how
/// often each is bound.
pub(super) fn count_bindings(stmt: &Stmt, counts: &mut HashMap<String, u32>) {
    fn names(target: &Expr, counts: &mut HashMap<String, u32>) {
        match target {
            Expr::Name(n) => *counts.entry(n.id.to_string()).or_default() += 1,
            Expr::Tuple(t) => t.elts.iter().for_each(|e| names(e, counts)),
            Expr::List(t) => t.elts.iter().for_each(|e| names(e, counts)),
            Expr::Starred(s) => names(&s.value, counts),
            _ => {}
        }
    }
    match stmt {
        Stmt::Assign(a) => a.targets.iter().for_each(|t| names(t, counts)),
        Stmt::AnnAssign(a) if a.value.is_some() => names(&a.target, counts),
        Stmt::AugAssign(a) => names(&a.target, counts),
        Stmt::For(f) => names(&f.target, counts),
        _ => {}
    }
}

/// `NAME = 4` at module level, as a candidate constant (kept when nothing else binds the name).
pub(super) fn module_constant(stmt: &Stmt, text: &str) -> Option<(String, ConstDecl)> {
    let (target, value) = literal_binding(stmt)?;
    let Expr::Name(n) = target else { return None };
    Some((n.id.to_string(), decl(stmt, value, text)))
}

/// Keeps the candidates bound exactly once at module level, neither imported nor declared
/// `global` anywhere (a function could rebind them).
pub(super) fn keep_module_constants(
    candidates: Vec<(String, ConstDecl)>,
    counts: &HashMap<String, u32>,
    imports: &rustc_hash::FxHashMap<String, String>,
    text: &str,
) -> HashMap<String, ConstDecl> {
    candidates
        .into_iter()
        .filter(|(name, _)| {
            counts.get(name) == Some(&1)
                && !imports.contains_key(name)
                && !declared_global(text, name)
        })
        .collect()
}

/// `global NAME` (or `global A, NAME`) on some line of the file.
fn declared_global(text: &str, name: &str) -> bool {
    text.contains("global ")
        && text.lines().any(|line| {
            line.trim_start()
                .strip_prefix("global ")
                .is_some_and(|rest| rest.split(',').any(|n| n.trim() == name))
        })
}

/// The class's constants: integer literals its body binds once (`num_heads = 4`) with no
/// `self.num_heads` assignment anywhere in the class, and attributes the top level of `__init__`
/// sets to an integer literal (`self.topk = 8`) that no other statement of the class assigns.
pub(super) fn class_constants(class: &ast::StmtClassDef, text: &str) -> HashMap<String, ConstDecl> {
    let class_text = text.get(class.range.to_std_range()).unwrap_or("");
    let mut counts = HashMap::new();
    for stmt in &class.body {
        count_bindings(stmt, &mut counts);
    }
    let mut writes = HashMap::new();
    self_writes(&class.body, &mut writes);
    let mut out = HashMap::new();
    for stmt in &class.body {
        if let Some((Expr::Name(n), value)) = literal_binding(stmt) {
            let name = n.id.as_str();
            if counts.get(name) == Some(&1) && assigned(&writes, class_text, name) == 0 {
                out.insert(name.to_string(), decl(stmt, value, text));
            }
        }
    }
    let init = class.body.iter().find_map(|stmt| match stmt {
        Stmt::FunctionDef(f) if f.name.id.as_str() == "__init__" => Some(f),
        _ => None,
    });
    for stmt in init.iter().flat_map(|f| &f.body) {
        let Some((Expr::Attribute(target), value)) = literal_binding(stmt) else {
            continue;
        };
        let attr = target.attr.id.as_str();
        if matches!(&*target.value, Expr::Name(n) if n.id.as_str() == "self")
            && !counts.contains_key(attr)
            && assigned(&writes, class_text, attr) == 1
        {
            out.insert(attr.to_string(), decl(stmt, value, text));
        }
    }
    if let Some(init) = init {
        for (attr, found) in parameter_defaults(init, text) {
            if !counts.contains_key(&attr)
                && !out.contains_key(&attr)
                && assigned(&writes, class_text, &attr) == 1
            {
                out.insert(attr, found);
            }
        }
    }
    out
}

/// The class's attributes that hold a Python number: set once, at the top level of `__init__`,
/// to a number literal (`self.eps = 1e-6`) or to a parameter annotated `int`, `float` or `bool`
/// that `__init__` never rebinds (`self._end_index = end_index` with `end_index: int`), and
/// assigned nowhere else in the class. `x == self._end_index` then compares with a number: its
/// result has `x`'s full shape.
pub(super) fn class_number_attributes(class: &ast::StmtClassDef, text: &str) -> HashSet<String> {
    let mut out = HashSet::new();
    let Some(init) = class.body.iter().find_map(|stmt| match stmt {
        Stmt::FunctionDef(f) if f.name.id.as_str() == "__init__" => Some(f),
        _ => None,
    }) else {
        return out;
    };
    let numbers: Vec<&str> = init
        .parameters
        .iter_non_variadic_params()
        .filter(|p| {
            matches!(p.parameter.annotation.as_deref(),
                Some(Expr::Name(t)) if matches!(t.id.as_str(), "int" | "float" | "bool"))
        })
        .map(|p| p.parameter.name.id.as_str())
        .collect();
    let mut rebound = HashMap::new();
    local_writes(&init.body, &mut rebound);
    let class_text = text.get(class.range.to_std_range()).unwrap_or("");
    let mut writes = HashMap::new();
    self_writes(&class.body, &mut writes);
    let mut counts = HashMap::new();
    for stmt in &class.body {
        count_bindings(stmt, &mut counts);
    }
    for stmt in &init.body {
        let Stmt::Assign(a) = stmt else { continue };
        let [Expr::Attribute(target)] = a.targets.as_slice() else {
            continue;
        };
        if !matches!(&*target.value, Expr::Name(n) if n.id.as_str() == "self") {
            continue;
        }
        let number = match &*a.value {
            Expr::Name(source) => {
                numbers.contains(&source.id.as_str()) && !rebound.contains_key(source.id.as_str())
            }
            value => is_number_literal(value),
        };
        let attr = target.attr.id.as_str();
        if number && !counts.contains_key(attr) && assigned(&writes, class_text, attr) == 1 {
            out.insert(attr.to_string());
        }
    }
    out
}

/// `4`, `1e-6`, `-1`, `True`.
fn is_number_literal(e: &Expr) -> bool {
    match e {
        Expr::NumberLiteral(_) | Expr::BooleanLiteral(_) => true,
        Expr::UnaryOp(u) => matches!(&*u.operand, Expr::NumberLiteral(_)),
        _ => false,
    }
}

/// `self.X = P` at the top level of `__init__`, where the parameter `P` has a positive integer
/// literal default and `__init__` never rebinds it: `X` is `P`'s default unless a caller passes
/// another size (`def __init__(self, dim, num_register_tokens=4)`).
fn parameter_defaults(init: &ast::StmtFunctionDef, text: &str) -> Vec<(String, ConstDecl)> {
    let mut defaults: Vec<(&str, i64, u32, String)> = Vec::new();
    for param in init.parameters.iter_non_variadic_params() {
        let Some(value) = param.default.as_deref().and_then(literal_int) else {
            continue;
        };
        if value < 1 {
            continue;
        }
        let written = collapse_code(text.get(param.range.to_std_range()).unwrap_or(""));
        let name = param.parameter.name.id.as_str();
        defaults.push((name, value, param.range.start().to_u32(), written));
    }
    if defaults.is_empty() {
        return Vec::new();
    }
    let mut rebound = HashMap::new();
    local_writes(&init.body, &mut rebound);
    let mut out = Vec::new();
    for stmt in &init.body {
        let Stmt::Assign(a) = stmt else { continue };
        let ([Expr::Attribute(target)], Expr::Name(source)) = (a.targets.as_slice(), &*a.value)
        else {
            continue;
        };
        if !matches!(&*target.value, Expr::Name(n) if n.id.as_str() == "self") {
            continue;
        }
        let Some((_, value, offset, written)) = defaults
            .iter()
            .find(|(name, ..)| *name == source.id.as_str())
        else {
            continue;
        };
        if rebound.contains_key(source.id.as_str()) {
            continue;
        }
        out.push((
            target.attr.id.to_string(),
            ConstDecl {
                value: *value,
                written: written.clone(),
                offset: *offset,
                kind: ConstantKind::ParameterDefault,
            },
        ));
    }
    out
}

/// Every plain name `body` binds, at any depth (nested functions and classes aside: theirs are
/// other scopes), so that a parameter rebound anywhere is not taken at its default.
fn local_writes(body: &[Stmt], out: &mut HashMap<String, u32>) {
    for stmt in body {
        count_bindings(stmt, out);
        if let Stmt::With(w) = stmt {
            for item in &w.items {
                if let Some(Expr::Name(n)) = item.optional_vars.as_deref() {
                    *out.entry(n.id.to_string()).or_default() += 1;
                }
            }
        }
        for block in nested_blocks(stmt) {
            local_writes(block, out);
        }
    }
}

/// How often the class's statements assign `self.<attr>`, plus the places that name it as a
/// string (`setattr(self, "attr", v)`, `self.__dict__["attr"]`): a doubt counts as a write.
fn assigned(writes: &HashMap<String, u32>, class_text: &str, attr: &str) -> u32 {
    let quoted = class_text.matches(&format!("\"{attr}\"")).count()
        + class_text.matches(&format!("'{attr}'")).count();
    writes.get(attr).copied().unwrap_or(0) + quoted as u32
}

/// Counts the `self.<attr>` targets of every statement below `body` (methods included, nested
/// classes not: their `self` is another object).
fn self_writes(body: &[Stmt], out: &mut HashMap<String, u32>) {
    fn target(t: &Expr, out: &mut HashMap<String, u32>) {
        match t {
            Expr::Attribute(a) if matches!(&*a.value, Expr::Name(n) if n.id.as_str() == "self") => {
                *out.entry(a.attr.id.to_string()).or_default() += 1;
            }
            Expr::Tuple(t) => t.elts.iter().for_each(|e| target(e, out)),
            Expr::List(t) => t.elts.iter().for_each(|e| target(e, out)),
            Expr::Starred(s) => target(&s.value, out),
            _ => {}
        }
    }
    for stmt in body {
        match stmt {
            Stmt::Assign(a) => a.targets.iter().for_each(|t| target(t, out)),
            Stmt::AnnAssign(a) => target(&a.target, out),
            Stmt::AugAssign(a) => target(&a.target, out),
            Stmt::For(f) => target(&f.target, out),
            Stmt::With(w) => {
                for t in w
                    .items
                    .iter()
                    .filter_map(|item| item.optional_vars.as_deref())
                {
                    target(t, out);
                }
            }
            Stmt::FunctionDef(f) => self_writes(&f.body, out),
            _ => {}
        }
        for block in nested_blocks(stmt) {
            self_writes(block, out);
        }
    }
}

/// Names a symbolic size reads as a variable.
fn var_names<'e>(expr: &'e SymExpr, out: &mut Vec<&'e str>) {
    match expr {
        SymExpr::Var(n) => {
            if !out.contains(&n.as_str()) {
                out.push(n);
            }
        }
        SymExpr::Num(_) | SymExpr::Opaque(_) => {}
        SymExpr::Mul(a, b) | SymExpr::Add(a, b) | SymExpr::Sub(a, b) | SymExpr::FloorDiv(a, b) => {
            var_names(a, out);
            var_names(b, out);
        }
    }
}

/// Whether `text` reads `name` as an attribute of something other than `receivers`
/// (`config.num_heads` where `self.num_heads` is meant): the shape's name is then ambiguous.
fn read_on_other(text: &str, name: &str, receivers: &[&str]) -> bool {
    word_offsets(text, name).any(|at| {
        let before = &text[..at as usize];
        before.ends_with('.')
            && !receivers
                .iter()
                .any(|r| before.ends_with(&format!("{r}.")) && word_start(before, r.len() + 1))
    })
}

/// The receiver that ends `before` (its last `len` bytes) starts a word.
fn word_start(before: &str, len: usize) -> bool {
    before[..before.len() - len]
        .chars()
        .next_back()
        .is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '.'))
}

/// Whether `text` reads `name` on one of `receivers` (`self.topk`, `cls.TOPK`).
fn read_on(text: &str, name: &str, receivers: &[&str]) -> bool {
    word_offsets(text, name).any(|at| {
        let before = &text[..at as usize];
        receivers
            .iter()
            .any(|r| before.ends_with(&format!("{r}.")) && word_start(before, r.len() + 1))
    })
}

/// The line of byte `offset`, from 1.
fn line_of(text: &str, offset: u32) -> u32 {
    let upto = text.get(..offset as usize).unwrap_or(text);
    upto.bytes().filter(|b| *b == b'\n').count() as u32 + 1
}

impl Walker<'_, '_> {
    /// The constants `shape` and `growth` name, as this scope reads them: a class constant through `self.`,
    /// `cls.` or the class's name; a module constant as a bare name this scope does not bind
    /// (a parameter or local of that name is not the constant). A name also read as another
    /// object's attribute in this scope is left out: it may be that attribute.
    pub(super) fn constants_read(
        &self,
        shape: Option<&Shape>,
        growth: Option<&[SymExpr]>,
    ) -> Vec<NamedConstant> {
        let mut read = Vec::new();
        for dim in shape.iter().flat_map(|s| &s.0) {
            if let Dim::Size(expr) = dim {
                var_names(expr, &mut read);
            }
        }
        // The factors of a copy: what casting first saves depends on them.
        for expr in growth.into_iter().flatten() {
            var_names(expr, &mut read);
        }
        if read.is_empty() {
            return Vec::new();
        }
        let text = self.fs.text;
        let scope = text.get(self.scope_range.to_std_range()).unwrap_or("");
        let class = self.class_name.as_deref();
        let receivers: Vec<&str> = ["self", "cls"].into_iter().chain(class).collect();
        let mut out = Vec::new();
        for name in read {
            let found = match self.fs.class_constants.get(name) {
                Some(decl)
                    if class.is_some()
                        && read_on(scope, name, &receivers)
                        && !read_on_other(scope, name, &receivers)
                        && !self.binds_locally(name) =>
                {
                    Some(decl)
                }
                _ => self.fs.constants.get(name).filter(|_| {
                    !self.binds_locally(name) && !read_on_other(scope, name, &[]) && {
                        // Read bare somewhere in this scope (not only as an attribute).
                        word_offsets(scope, name).any(|at| !scope[..at as usize].ends_with('.'))
                    }
                }),
            };
            if let Some(decl) = found {
                out.push(NamedConstant {
                    name: name.to_string(),
                    value: decl.value,
                    written: decl.written.clone(),
                    line: line_of(text, decl.offset),
                    kind: decl.kind,
                });
            }
        }
        out
    }

    /// A parameter or local of this scope named `name`.
    fn binds_locally(&self, name: &str) -> bool {
        self.bound_here.contains(name) || self.env.contains_key(name)
    }
}

#[cfg(test)]
mod tests {
    use crate::analysis::{ModuleInfo, SummaryTable, analyze_module};
    use crate::source::parse_module;

    /// `(name, value, written, line)` of the constants each site's shape names.
    fn constants(code: &str) -> Vec<Vec<(String, i64, String, u32)>> {
        let parsed = parse_module(code, false);
        let analysis = analyze_module(
            &parsed.body,
            code,
            &ModuleInfo::default(),
            &SummaryTable::default(),
            false,
        );
        analysis
            .sites
            .iter()
            .map(|s| {
                s.constants
                    .iter()
                    .map(|c| (c.name.clone(), c.value, c.written.clone(), c.line))
                    .collect()
            })
            .collect()
    }

    fn one(name: &str, value: i64, written: &str, line: u32) -> Vec<(String, i64, String, u32)> {
        vec![(name.to_string(), value, written.to_string(), line)]
    }

    #[test]
    fn module_constants_bind_the_names_that_read_them() {
        let code = "import torch\nNUM_HEADS = 4\nTOPK: int = 16\n\ndef f(m, b, s):\n    return m.expand(b, NUM_HEADS, s, TOPK).float()\n";
        let found = constants(code);
        assert_eq!(found.len(), 1);
        let mut expected = one("NUM_HEADS", 4, "NUM_HEADS = 4", 2);
        expected.extend(one("TOPK", 16, "TOPK: int = 16", 3));
        assert_eq!(found[0], expected);
    }

    #[test]
    fn a_rebound_or_shadowed_name_is_not_a_constant() {
        let cases = [
            // Bound twice at module level.
            "import torch\nH = 4\nif X:\n    H = 64\n\ndef f(m, b, s):\n    return m.expand(b, H, s, s).float()\n",
            // A parameter of the same name.
            "import torch\nH = 4\n\ndef f(m, b, s, H):\n    return m.expand(b, H, s, s).float()\n",
            // A local of the same name.
            "import torch\nH = 4\n\ndef f(m, b, s):\n    H = m.shape[1]\n    return m.expand(b, H, s, s).float()\n",
            // Declared global somewhere: a function may rebind it.
            "import torch\nH = 4\n\ndef g():\n    global H\n    H = 8\n\ndef f(m, b, s):\n    return m.expand(b, H, s, s).float()\n",
            // Read as another object's attribute (`cfg.H`), not the module's name.
            "import torch\nH = 4\n\ndef f(m, b, s, cfg):\n    return m.expand(b, cfg.H, s, s).float()\n",
            // Not a literal.
            "import torch\nH = compute()\n\ndef f(m, b, s):\n    return m.expand(b, H, s, s).float()\n",
        ];
        for code in cases {
            let found = constants(code);
            assert_eq!(found.len(), 1, "{code}");
            assert!(found[0].is_empty(), "{code}: {:?}", found[0]);
        }
    }

    #[test]
    fn class_constants_bind_attributes_of_self_and_cls() {
        let code = "import torch\nclass A:\n    num_heads = 4\n    def __init__(self):\n        self.topk = 8\n        self.dim = 64\n        self.dim = 128\n    def forward(self, m, b):\n        return m.expand(b, self.num_heads, self.topk, self.dim).float()\n";
        let found = constants(code);
        assert_eq!(found.len(), 1);
        let mut expected = one("num_heads", 4, "num_heads = 4", 3);
        expected.extend(one("topk", 8, "self.topk = 8", 5));
        assert_eq!(found[0], expected, "dim is assigned twice: not a constant");
        // Set again outside `__init__`, or read off something else: not the constant.
        let code = "import torch\nclass A:\n    def __init__(self):\n        self.topk = 8\n    def set(self, k):\n        self.topk = k\n    def forward(self, m, b):\n        return m.expand(b, self.topk, 4, 4).float()\n";
        assert_eq!(constants(code), vec![Vec::new()]);
        let code = "import torch\nclass A:\n    topk = 8\n    def forward(self, m, b, cfg):\n        return m.expand(b, cfg.topk, 4, 4).float()\n";
        assert_eq!(constants(code), vec![Vec::new()]);
    }

    #[test]
    fn an_attribute_set_from_an_init_parameter_takes_its_default() {
        let code = "import torch\nclass A:\n    def __init__(self, dim, num_tokens: int = 4):\n        self.dim = dim\n        self.num_tokens = num_tokens\n    def forward(self, m, b):\n        return m.expand(b, self.num_tokens, self.dim).float()\n";
        let found = constants(code);
        assert_eq!(found, vec![one("num_tokens", 4, "num_tokens: int = 4", 3)]);
        let analysis_kind = {
            let parsed = parse_module(code, false);
            let analysis = analyze_module(
                &parsed.body,
                code,
                &ModuleInfo::default(),
                &SummaryTable::default(),
                false,
            );
            analysis.sites[0].constants[0].kind
        };
        assert_eq!(
            analysis_kind,
            crate::analysis::ConstantKind::ParameterDefault
        );
        // Not the default: rebound in `__init__`, the attribute set again elsewhere, a default
        // that is not a positive integer literal, or a parameter with no default.
        let cases = [
            "import torch\nclass A:\n    def __init__(self, n=4):\n        if n < 8:\n            n = 8\n        self.n = n\n    def forward(self, m, b):\n        return m.expand(b, self.n, 4).float()\n",
            "import torch\nclass A:\n    def __init__(self, n=4):\n        self.n = n\n    def grow(self):\n        self.n = 64\n    def forward(self, m, b):\n        return m.expand(b, self.n, 4).float()\n",
            "import torch\nclass A:\n    def __init__(self, n=None):\n        self.n = n\n    def forward(self, m, b):\n        return m.expand(b, self.n, 4).float()\n",
            "import torch\nclass A:\n    def __init__(self, n=0):\n        self.n = n\n    def forward(self, m, b):\n        return m.expand(b, self.n, 4).float()\n",
            "import torch\nclass A:\n    def __init__(self, n):\n        self.n = n\n    def forward(self, m, b):\n        return m.expand(b, self.n, 4).float()\n",
        ];
        for code in cases {
            assert_eq!(constants(code), vec![Vec::new()], "{code}");
        }
    }
}
