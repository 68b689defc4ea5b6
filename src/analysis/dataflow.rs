//! The flow-sensitive walk over one file: one pass per scope (module, class body, function,
//! lambda), facts per name joined at control-flow merges, loops run to a fixpoint.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use crate::source::ast::visitor::{Visitor, walk_expr};
use crate::source::ast::{self, CmpOp, Expr, Number, Operator, Stmt, UnaryOp};
use crate::source::{Ranged, TextRange};

use super::facts::{
    DType, Dim, EnlargeKind, Enlarged, Fact, Shape, SiteId, Step, StepRole, SymExpr, ValueKind,
};
use super::torch_api::{
    BINARY_ELEMENTWISE, COPY_ENLARGERS, DEVICE_METHODS, DTYPE_PRESERVING, MATERIALIZE_METHODS,
    UNARY_ELEMENTWISE, VIEW_ENLARGERS, VIEW_METHODS, is_non_tensor_module, is_sized_factory,
    returns_bool,
};
use super::{FileAnalysis, FunctionSummary, ModuleInfo, SinkKind, Site, SummaryTable};

/// How the parent expression uses a value (for OOM121: is a repeat only read by broadcasting
/// consumers?).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum UseCtx {
    Other,
    Broadcast,
    Bind,
}

struct PendingSite {
    site: Site,
    written_in_place: bool,
    discarded: bool,
    /// For a repeated copy: which copy it converts (see `FileState::copy_uses`).
    copy_origin: Option<u32>,
}

/// What a later use of a sink's result says about it.
#[derive(Clone, Copy)]
enum ResultUse {
    Escapes,
    NeedsContiguous,
}

struct RepeatCandidate {
    enlarged: Enlarged,
    range: TextRange,
    receiver: TextRange,
    scope_range: TextRange,
    code: String,
    stmt_range: TextRange,
    expand_args: String,
    dtype: Option<DType>,
    shape: Option<Shape>,
    broadcast_use: bool,
    other_use: bool,
}

/// State shared by every scope of one file.
struct FileState<'a> {
    text: &'a str,
    module: &'a ModuleInfo,
    summaries: &'a SummaryTable,
    /// Local name -> dotted path, from import statements.
    imports: HashMap<String, String>,
    module_functions: HashSet<String>,
    module_classes: HashSet<String>,
    /// Module-level constants that are plain numbers.
    globals: HashMap<String, Fact>,
    sites: Vec<PendingSite>,
    site_index: HashMap<(u32, u32), SiteId>,
    repeats: Vec<RepeatCandidate>,
    repeat_index: HashMap<(u32, u32), u32>,
    /// For each repeated copy bound to a name: the places that read it (a set: loops revisit).
    copy_uses: Vec<Vec<TextRange>>,
    copy_index: HashMap<(u32, u32), u32>,
    summaries_out: Vec<FunctionSummary>,
    want_summaries: bool,
}

type Env = rustc_hash::FxHashMap<String, Fact>;

/// Analyzes one parsed module. `summaries` are those of the whole linted tree (may be empty);
/// with `want_summaries` the result also lists this file's functions that return enlarged values.
pub fn analyze_module(
    body: &[Stmt],
    text: &str,
    module: &ModuleInfo,
    summaries: &SummaryTable,
    want_summaries: bool,
) -> FileAnalysis {
    let mut fs = FileState {
        text,
        module,
        summaries,
        imports: HashMap::new(),
        module_functions: HashSet::new(),
        module_classes: HashSet::new(),
        globals: HashMap::new(),
        sites: Vec::new(),
        site_index: HashMap::new(),
        repeats: Vec::new(),
        repeat_index: HashMap::new(),
        copy_uses: Vec::new(),
        copy_index: HashMap::new(),
        summaries_out: Vec::new(),
        want_summaries,
    };
    fs.prepass(body);
    {
        let whole = TextRange::up_to(crate::source::TextSize::of(text));
        let mut walker = Walker::new(&mut fs, None, false, whole);
        walker.run_body(body);
    }
    fs.finish()
}

impl<'a> FileState<'a> {
    /// Module-level names: imports, functions, classes and numeric constants, so that a function
    /// body sees them whatever their order in the file.
    fn prepass(&mut self, body: &[Stmt]) {
        for stmt in body {
            match stmt {
                Stmt::Import(_) | Stmt::ImportFrom(_) => self.record_import(stmt),
                Stmt::FunctionDef(f) => {
                    self.module_functions.insert(f.name.id.to_string());
                }
                Stmt::ClassDef(c) => {
                    self.module_classes.insert(c.name.id.to_string());
                }
                Stmt::Assign(a) => {
                    if let [Expr::Name(n)] = a.targets.as_slice()
                        && is_number_literal(&a.value)
                    {
                        self.globals
                            .insert(n.id.to_string(), Fact::of_kind(ValueKind::Scalar));
                    }
                }
                Stmt::If(s) => {
                    self.prepass(&s.body);
                    for clause in &s.elif_else_clauses {
                        self.prepass(&clause.body);
                    }
                }
                Stmt::Try(t) => {
                    self.prepass(&t.body);
                    for handler in &t.handlers {
                        let ast::ExceptHandler::ExceptHandler(h) = handler;
                        self.prepass(&h.body);
                    }
                }
                _ => {}
            }
        }
    }

    fn record_import(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Import(imp) => {
                for alias in &imp.names {
                    let full = alias.name.id.to_string();
                    match &alias.asname {
                        Some(asname) => {
                            self.imports.insert(asname.id.to_string(), full);
                        }
                        None => {
                            // `import a.b.c` binds `a`.
                            let root = full.split('.').next().unwrap_or(&full).to_string();
                            self.imports.insert(root.clone(), root);
                        }
                    }
                }
            }
            Stmt::ImportFrom(imp) => {
                let module = imp.module.as_ref().map(|m| m.id.as_str());
                let Some(base) = self.module.resolve_from(module, imp.level) else {
                    return;
                };
                for alias in &imp.names {
                    if alias.name.id.as_str() == "*" {
                        continue;
                    }
                    let local = alias.asname.as_ref().unwrap_or(&alias.name).id.to_string();
                    let full = if base.is_empty() {
                        alias.name.id.to_string()
                    } else {
                        format!("{base}.{}", alias.name.id)
                    };
                    self.imports.insert(local, full);
                }
            }
            _ => {}
        }
    }

    fn finish(mut self) -> FileAnalysis {
        let copy_uses = std::mem::take(&mut self.copy_uses);
        let mut sites: Vec<Site> = self
            .sites
            .drain(..)
            .filter(|p| {
                if p.discarded {
                    return false;
                }
                match p.site.enlarged.kind {
                    // The copy was needed for the in-place write.
                    EnlargeKind::View => !p.written_in_place,
                    // After the reorder the result is still a real, writable copy; but when the
                    // repeated tensor is also read elsewhere, converting first would need a
                    // second repeat, which saves nothing.
                    EnlargeKind::Copy => p
                        .copy_origin
                        .and_then(|id| copy_uses.get(id as usize))
                        .is_none_or(|uses| uses.len() <= 1),
                }
            })
            .map(|p| p.site)
            .collect();
        // A repeat already reported for its conversion is not also a repeat-instead-of-expand.
        let reported_repeats: Vec<TextRange> = sites
            .iter()
            .flat_map(|s| s.enlarged.steps.iter())
            .filter(|step| step.role == StepRole::Enlarge)
            .map(|step| step.range)
            .collect();
        for candidate in self.repeats.drain(..) {
            if candidate.broadcast_use
                && !candidate.other_use
                && !reported_repeats.contains(&candidate.range)
            {
                sites.push(Site {
                    sink: SinkKind::RepeatAsExpand {
                        expand_args: candidate.expand_args,
                    },
                    enlarged: candidate.enlarged,
                    sink_step: Step {
                        role: StepRole::Sink,
                        file: None,
                        range: candidate.range,
                        code: candidate.code,
                        receiver: Some(candidate.receiver),
                        stmt: candidate.stmt_range,
                    },
                    stmt_range: candidate.stmt_range,
                    result_dtype: candidate.dtype,
                    result_shape: candidate.shape,
                    scope_range: candidate.scope_range,
                    result_escapes: false,
                    result_needs_contiguous: false,
                });
            }
        }
        sites.sort_by_key(|s| (s.sink_step.range.start(), s.sink_step.range.end()));
        FileAnalysis {
            sites,
            summaries: self.summaries_out,
        }
    }

    fn code(&self, range: TextRange) -> String {
        collapse_code(self.text.get(range.to_std_range()).unwrap_or(""))
    }
}

/// One scope's walk.
struct Walker<'s, 'a> {
    fs: &'s mut FileState<'a>,
    env: Env,
    /// The class whose method this is (`self.helper()` resolves to `Class.helper`).
    class_name: Option<String>,
    /// Facts of `return` values, in a function.
    returns: Option<Vec<Fact>>,
    stmt_range: TextRange,
    use_ctx: UseCtx,
    /// The function (or module) being walked.
    scope_range: TextRange,
    /// The receiver of the method call whose sink is being recorded (set by `eval_method`).
    sink_receiver: Option<TextRange>,
    /// The last read of a repeated copy through a name (undone when the read only takes a view
    /// or metadata of it, which does not consume it).
    last_copy_use: Option<(u32, TextRange)>,
}

impl<'s, 'a> Walker<'s, 'a> {
    fn new(
        fs: &'s mut FileState<'a>,
        class_name: Option<String>,
        in_function: bool,
        scope_range: TextRange,
    ) -> Self {
        Walker {
            fs,
            env: Env::default(),
            class_name,
            returns: in_function.then(Vec::new),
            stmt_range: TextRange::default(),
            use_ctx: UseCtx::Other,
            scope_range,
            sink_receiver: None,
            last_copy_use: None,
        }
    }

    /// Evaluates the receiver of a view or metadata access: reading `x.shape` or `x.view(...)`
    /// does not consume a repeated copy `x`.
    fn eval_not_consuming(&mut self, expr: &Expr, consumes: bool) -> Fact {
        self.last_copy_use = None;
        let fact = self.eval(expr);
        if !consumes
            && matches!(expr, Expr::Name(_) | Expr::Attribute(_))
            && let Some((id, at)) = self.last_copy_use.take()
            && let Some(uses) = self.fs.copy_uses.get_mut(id as usize)
        {
            uses.retain(|u| *u != at);
        }
        fact
    }

    // ----------------------------------------------------------------------------------------
    // Statements

    fn run_body(&mut self, body: &[Stmt]) {
        for stmt in body {
            self.stmt(stmt);
        }
    }

    fn stmt(&mut self, stmt: &Stmt) {
        stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || self.stmt_inner(stmt));
    }

    fn stmt_inner(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Assign(a) => {
                self.stmt_range = a.range;
                self.assign(&a.targets, &a.value);
            }
            Stmt::AnnAssign(a) => {
                self.stmt_range = a.range;
                let fact = match &a.value {
                    Some(value) => self.eval_with(value, UseCtx::Bind),
                    None => annotation_fact(&a.annotation),
                };
                self.bind(&a.target, fact);
            }
            Stmt::AugAssign(a) => {
                self.stmt_range = a.range;
                let target = self.eval(&a.target);
                // `x += y` writes x in place.
                self.mark_in_place(&target);
                let value = self.eval_with(&a.value, UseCtx::Broadcast);
                let fact = if target.kind == ValueKind::Scalar && value.kind != ValueKind::Scalar {
                    Fact::unknown()
                } else {
                    target
                };
                if let Some(key) = dotted_key(&a.target) {
                    self.set(key, fact);
                }
            }
            Stmt::Expr(e) => {
                self.stmt_range = e.range;
                let before = self.fs.sites.len() as SiteId;
                let fact = self.eval(&e.value);
                // A conversion whose result is thrown away allocates nothing anyone keeps.
                for id in fact.sink_results {
                    if id >= before
                        && let Some(p) = self.fs.sites.get_mut(id as usize)
                    {
                        p.discarded = true;
                    }
                }
            }
            Stmt::Return(r) => {
                self.stmt_range = r.range;
                let fact = match &r.value {
                    Some(v) => self.eval(v),
                    None => Fact::of_kind(ValueKind::NotTensor),
                };
                self.mark_use(&fact, ResultUse::Escapes);
                if let Some(returns) = &mut self.returns {
                    returns.push(fact);
                }
            }
            Stmt::Delete(d) => {
                self.stmt_range = d.range;
                for target in &d.targets {
                    if let Some(key) = dotted_key(target) {
                        self.env.remove(&key);
                    } else {
                        self.eval(target);
                    }
                }
            }
            Stmt::If(s) => {
                self.stmt_range = s.test.range();
                self.eval(&s.test);
                let entry = self.env.clone();
                self.run_body(&s.body);
                let mut merged = std::mem::replace(&mut self.env, entry.clone());
                let mut has_else = false;
                for clause in &s.elif_else_clauses {
                    self.env = entry.clone();
                    if let Some(test) = &clause.test {
                        self.stmt_range = test.range();
                        self.eval(test);
                    } else {
                        has_else = true;
                    }
                    self.run_body(&clause.body);
                    merged = join_env(&merged, &self.env);
                }
                if !has_else {
                    merged = join_env(&merged, &entry);
                }
                self.env = merged;
            }
            Stmt::For(f) => {
                self.stmt_range = f.iter.range();
                self.eval(&f.iter);
                let target = &f.target;
                self.run_loop(&f.body, |w| w.bind(target, Fact::unknown()));
                self.run_body(&f.orelse);
            }
            Stmt::While(w) => {
                self.stmt_range = w.test.range();
                self.eval(&w.test);
                let test = &w.test;
                self.run_loop(&w.body, |walker| {
                    walker.eval(test);
                });
                self.run_body(&w.orelse);
            }
            Stmt::With(w) => {
                for item in &w.items {
                    self.stmt_range = item.range;
                    self.eval(&item.context_expr);
                    if let Some(vars) = &item.optional_vars {
                        self.bind(vars, Fact::unknown());
                    }
                }
                self.run_body(&w.body);
            }
            Stmt::Try(t) => {
                let entry = self.env.clone();
                self.run_body(&t.body);
                let after_body = self.env.clone();
                // A handler may start anywhere in the body.
                let handler_entry = join_env(&entry, &after_body);
                let mut merged = {
                    self.run_body(&t.orelse);
                    self.env.clone()
                };
                for handler in &t.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = handler;
                    self.env = handler_entry.clone();
                    if let Some(ty) = &h.type_ {
                        self.stmt_range = ty.range();
                        self.eval(ty);
                    }
                    if let Some(name) = &h.name {
                        self.env
                            .insert(name.id.to_string(), Fact::of_kind(ValueKind::NotTensor));
                    }
                    self.run_body(&h.body);
                    merged = join_env(&merged, &self.env);
                }
                self.env = merged;
                self.run_body(&t.finalbody);
            }
            Stmt::Match(m) => {
                self.stmt_range = m.subject.range();
                self.eval(&m.subject);
                let entry = self.env.clone();
                let mut merged = entry.clone();
                for case in &m.cases {
                    self.env = entry.clone();
                    if let Some(guard) = &case.guard {
                        self.eval(guard);
                    }
                    self.run_body(&case.body);
                    merged = join_env(&merged, &self.env);
                }
                self.env = merged;
            }
            Stmt::FunctionDef(def) => {
                for decorator in &def.decorator_list {
                    self.stmt_range = decorator.range;
                    self.eval(&decorator.expression);
                }
                for param in def.parameters.iter_non_variadic_params() {
                    if let Some(default) = &param.default {
                        self.eval(default);
                    }
                }
                let summarize = self.returns.is_none();
                let class_name = self.class_name.clone();
                analyze_function(self.fs, def, class_name, summarize);
                self.env
                    .insert(def.name.id.to_string(), Fact::of_kind(ValueKind::NotTensor));
            }
            Stmt::ClassDef(class) => {
                for decorator in &class.decorator_list {
                    self.eval(&decorator.expression);
                }
                if let Some(arguments) = &class.arguments {
                    for arg in &arguments.args {
                        self.eval(arg);
                    }
                }
                // Methods are summarized only for classes at module level.
                let name = (self.returns.is_none() && self.class_name.is_none())
                    .then(|| class.name.id.to_string());
                let scope = self.scope_range;
                let mut walker = Walker::new(self.fs, name, false, scope);
                walker.run_body(&class.body);
                self.env.insert(
                    class.name.id.to_string(),
                    Fact::of_kind(ValueKind::NotTensor),
                );
            }
            Stmt::Import(_) | Stmt::ImportFrom(_) => {
                self.fs.record_import(stmt);
                let names: Vec<String> = match stmt {
                    Stmt::Import(i) => i
                        .names
                        .iter()
                        .map(|a| a.asname.as_ref().unwrap_or(&a.name).id.to_string())
                        .collect(),
                    Stmt::ImportFrom(i) => i
                        .names
                        .iter()
                        .map(|a| a.asname.as_ref().unwrap_or(&a.name).id.to_string())
                        .collect(),
                    _ => Vec::new(),
                };
                for name in names {
                    self.env.remove(&name);
                }
            }
            Stmt::Raise(r) => {
                self.stmt_range = r.range;
                if let Some(exc) = &r.exc {
                    self.eval(exc);
                }
                if let Some(cause) = &r.cause {
                    self.eval(cause);
                }
            }
            Stmt::Assert(a) => {
                self.stmt_range = a.range;
                self.eval(&a.test);
                if let Some(msg) = &a.msg {
                    self.eval(msg);
                }
            }
            Stmt::TypeAlias(_)
            | Stmt::Global(_)
            | Stmt::Nonlocal(_)
            | Stmt::Pass(_)
            | Stmt::Break(_)
            | Stmt::Continue(_)
            | Stmt::IpyEscapeCommand(_) => {}
        }
    }

    /// Runs a loop body until the facts stop changing (bounded): the body may run zero or more
    /// times, so its exit facts are joined with its entry facts.
    fn run_loop(&mut self, body: &[Stmt], mut head: impl FnMut(&mut Self)) {
        for _ in 0..4 {
            let start = self.env.clone();
            head(self);
            self.run_body(body);
            let joined = join_env(&start, &self.env);
            let stable = joined == start;
            self.env = joined;
            if stable {
                break;
            }
        }
    }

    fn assign(&mut self, targets: &[Expr], value: &Expr) {
        if let [target] = targets {
            self.destructure(target, value);
            return;
        }
        let fact = self.eval_with(value, UseCtx::Bind);
        for target in targets {
            self.bind(target, fact.clone());
        }
    }

    /// `a, b = x.expand(...), y`, `first, *rest = ...`, `(m, _), n = (...), 3`: binds element by
    /// element when the value is a tuple or list display of matching length.
    fn destructure(&mut self, target: &Expr, value: &Expr) {
        let target_elts = match target {
            Expr::Tuple(t) => Some(&t.elts),
            Expr::List(t) => Some(&t.elts),
            _ => None,
        };
        let value_elts = match value {
            Expr::Tuple(v) => Some(&v.elts),
            Expr::List(v) => Some(&v.elts),
            _ => None,
        };
        let (Some(targets), Some(values)) = (target_elts, value_elts) else {
            let fact = self.eval_with(value, UseCtx::Bind);
            self.bind(target, fact);
            return;
        };
        if values.iter().any(|v| matches!(v, Expr::Starred(_))) {
            let fact = self.eval_with(value, UseCtx::Bind);
            self.bind(target, fact);
            return;
        }
        let star = targets.iter().position(|t| matches!(t, Expr::Starred(_)));
        let (before, after) = match star {
            Some(s) => (s, targets.len() - s - 1),
            None => (targets.len(), 0),
        };
        let fits = match star {
            Some(_) => values.len() >= before + after,
            None => values.len() == targets.len(),
        };
        if !fits {
            let fact = self.eval_with(value, UseCtx::Bind);
            self.bind(target, fact);
            return;
        }
        for (t, v) in targets[..before].iter().zip(&values[..before]) {
            self.destructure(t, v);
        }
        if let Some(s) = star {
            for v in &values[before..values.len() - after] {
                self.eval(v);
            }
            self.bind(&targets[s], Fact::of_kind(ValueKind::NotTensor));
            for (t, v) in targets[s + 1..].iter().zip(&values[values.len() - after..]) {
                self.destructure(t, v);
            }
        }
    }

    fn bind(&mut self, target: &Expr, fact: Fact) {
        if matches!(target, Expr::Attribute(_)) {
            // Stored on an object: other code may write to it.
            self.mark_use(&fact, ResultUse::Escapes);
        }
        match target {
            Expr::Name(_) | Expr::Attribute(_) => match dotted_key(target) {
                Some(key) => self.set(key, fact),
                None => {
                    if let Expr::Attribute(a) = target {
                        self.eval(&a.value);
                    }
                }
            },
            Expr::Subscript(s) => {
                let base = self.eval(&s.value);
                // `x[...] = v` writes x in place.
                self.mark_in_place(&base);
                self.eval(&s.slice);
            }
            Expr::Tuple(t) => {
                for elt in &t.elts {
                    self.bind(elt, Fact::unknown());
                }
            }
            Expr::List(t) => {
                for elt in &t.elts {
                    self.bind(elt, Fact::unknown());
                }
            }
            Expr::Starred(s) => self.bind(&s.value, Fact::of_kind(ValueKind::NotTensor)),
            _ => {
                self.eval(target);
            }
        }
    }

    /// Binds `key`, forgetting what was known about its attributes (`x.mask` after `x = ...`).
    fn set(&mut self, key: String, fact: Fact) {
        let n = key.len();
        self.env
            .retain(|k, _| !(k.len() > n && k.starts_with(&key) && k.as_bytes()[n] == b'.'));
        // An unknown value is the same as no entry: keeping the environment small keeps the
        // joins at branches and loops cheap.
        if fact == Fact::default() {
            self.env.remove(&key);
        } else {
            self.env.insert(key, fact);
        }
    }

    fn mark_use(&mut self, fact: &Fact, result_use: ResultUse) {
        for id in &fact.sink_results {
            if let Some(p) = self.fs.sites.get_mut(*id as usize) {
                match result_use {
                    ResultUse::Escapes => p.site.result_escapes = true,
                    ResultUse::NeedsContiguous => p.site.result_needs_contiguous = true,
                }
            }
        }
    }

    fn mark_in_place(&mut self, fact: &Fact) {
        for id in &fact.sink_results {
            if let Some(p) = self.fs.sites.get_mut(*id as usize) {
                p.written_in_place = true;
            }
        }
        if let Some(c) = fact.repeat_candidate
            && let Some(candidate) = self.fs.repeats.get_mut(c as usize)
        {
            // An expand view cannot be written in place: the copy is needed.
            candidate.other_use = true;
        }
    }

    // ----------------------------------------------------------------------------------------
    // Expressions

    fn eval(&mut self, expr: &Expr) -> Fact {
        self.eval_with(expr, UseCtx::Other)
    }

    fn eval_with(&mut self, expr: &Expr, ctx: UseCtx) -> Fact {
        self.use_ctx = ctx;
        stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || self.eval_inner(expr))
    }

    fn take_ctx(&mut self) -> UseCtx {
        std::mem::replace(&mut self.use_ctx, UseCtx::Other)
    }

    fn eval_inner(&mut self, expr: &Expr) -> Fact {
        let ctx = self.take_ctx();
        match expr {
            Expr::Name(n) => self.lookup(n.id.as_str(), ctx, n.range),
            Expr::Attribute(a) => self.eval_attribute(expr, a, ctx),
            Expr::Call(c) => self.eval_call(c, ctx),
            Expr::Subscript(s) => self.eval_subscript(s),
            Expr::BinOp(b) => self.eval_binop(b),
            Expr::UnaryOp(u) => self.eval_unary(u),
            Expr::Compare(c) => self.eval_compare(c),
            Expr::BoolOp(b) => {
                let mut out: Option<Fact> = None;
                for value in &b.values {
                    let f = self.eval(value);
                    out = Some(match out {
                        Some(o) => o.join(&f),
                        None => f,
                    });
                }
                let mut out = out.unwrap_or_default();
                out.sink_results.clear();
                out
            }
            Expr::Named(n) => {
                let fact = self.eval_with(&n.value, UseCtx::Bind);
                self.bind(&n.target, fact.clone());
                fact
            }
            Expr::If(i) => {
                self.eval(&i.test);
                let a = self.eval_with(&i.body, ctx);
                let b = self.eval_with(&i.orelse, ctx);
                a.join(&b)
            }
            Expr::NumberLiteral(_) | Expr::BooleanLiteral(_) => Fact::of_kind(ValueKind::Scalar),
            Expr::NoneLiteral(_)
            | Expr::StringLiteral(_)
            | Expr::BytesLiteral(_)
            | Expr::EllipsisLiteral(_) => Fact::of_kind(ValueKind::NotTensor),
            Expr::Lambda(l) => {
                let saved = self.env.clone();
                if let Some(params) = &l.parameters {
                    for p in params.iter_non_variadic_params() {
                        if let Some(default) = &p.default {
                            self.eval(default);
                        }
                        self.env
                            .insert(p.parameter.name.id.to_string(), Fact::unknown());
                    }
                }
                self.eval(&l.body);
                self.env = saved;
                Fact::of_kind(ValueKind::NotTensor)
            }
            Expr::ListComp(c) => self.comprehension(&c.generators, &[&c.elt]),
            Expr::SetComp(c) => self.comprehension(&c.generators, &[&c.elt]),
            Expr::Generator(c) => self.comprehension(&c.generators, &[&c.elt]),
            Expr::DictComp(c) => match &c.key {
                Some(key) => self.comprehension(&c.generators, &[key, &c.value]),
                None => self.comprehension(&c.generators, &[&c.value]),
            },
            Expr::Tuple(_) | Expr::List(_) | Expr::Set(_) | Expr::Dict(_) => {
                self.visit_children(expr);
                Fact::of_kind(ValueKind::NotTensor)
            }
            _ => {
                self.visit_children(expr);
                Fact::unknown()
            }
        }
    }

    fn visit_children(&mut self, expr: &Expr) {
        let mut children = ChildEval { walker: self };
        walk_expr(&mut children, expr);
    }

    fn comprehension(&mut self, generators: &[ast::Comprehension], elts: &[&Expr]) -> Fact {
        let saved = self.env.clone();
        for generator in generators {
            self.eval(&generator.iter);
            self.bind(&generator.target, Fact::unknown());
            for cond in &generator.ifs {
                self.eval(cond);
            }
        }
        for elt in elts {
            self.eval(elt);
        }
        self.env = saved;
        Fact::of_kind(ValueKind::NotTensor)
    }

    fn lookup(&mut self, name: &str, ctx: UseCtx, at: TextRange) -> Fact {
        if let Some(fact) = self.env.get(name) {
            let fact = fact.clone();
            self.record_use(&fact, ctx);
            if ctx != UseCtx::Bind
                && let Some(id) = fact.enlarged.as_ref().and_then(|e| e.copy_origin)
                && let Some(uses) = self.fs.copy_uses.get_mut(id as usize)
                && !uses.contains(&at)
            {
                uses.push(at);
                self.last_copy_use = Some((id, at));
            }
            return fact;
        }
        if let Some(fact) = self.fs.globals.get(name) {
            return fact.clone();
        }
        if self.fs.imports.contains_key(name) || name == "torch" || is_non_tensor_module(name) {
            return Fact::of_kind(ValueKind::NotTensor);
        }
        Fact::unknown()
    }

    fn record_use(&mut self, fact: &Fact, ctx: UseCtx) {
        if let Some(c) = fact.repeat_candidate
            && let Some(candidate) = self.fs.repeats.get_mut(c as usize)
        {
            match ctx {
                UseCtx::Broadcast => candidate.broadcast_use = true,
                UseCtx::Other => candidate.other_use = true,
                UseCtx::Bind => {}
            }
        }
    }

    /// The dotted module path an expression names (`F` -> `torch.nn.functional`), unless a local
    /// variable shadows it.
    fn module_path(&self, expr: &Expr) -> Option<String> {
        match expr {
            Expr::Name(n) => {
                let id = n.id.as_str();
                if self.env.contains_key(id) {
                    return None;
                }
                if let Some(path) = self.fs.imports.get(id) {
                    return Some(path.clone());
                }
                match id {
                    "torch" => Some("torch".into()),
                    "np" => Some("numpy".into()),
                    "F" => Some("torch.nn.functional".into()),
                    _ if is_non_tensor_module(id) => Some(id.to_string()),
                    _ if self.fs.module_classes.contains(id) => {
                        Some(format!("{}.{id}", self.fs.module.qualname))
                    }
                    _ => None,
                }
            }
            Expr::Attribute(a) => self
                .module_path(&a.value)
                .map(|p| format!("{p}.{}", a.attr.id)),
            _ => None,
        }
    }

    fn eval_attribute(&mut self, expr: &Expr, a: &ast::ExprAttribute, ctx: UseCtx) -> Fact {
        if let Some(key) = dotted_key(expr)
            && self.env.contains_key(&key)
        {
            return self.lookup(&key, ctx, expr.range());
        }
        let attr = a.attr.id.as_str();
        if let Some(path) = self.module_path(&a.value) {
            if path.starts_with("torch")
                && let Some(dtype) = DType::from_torch_name(attr)
            {
                return Fact::of_kind(ValueKind::DTypeValue(Some(dtype)));
            }
            if matches!(path.as_str(), "math" | "numpy")
                && matches!(attr, "inf" | "pi" | "e" | "nan")
            {
                return Fact::of_kind(ValueKind::Scalar);
            }
            return Fact::unknown();
        }
        // `torch.finfo(dtype).min` and friends are Python numbers.
        if let Expr::Call(call) = &*a.value
            && let Some(path) = self.module_path(&call.func)
            && (path.ends_with(".finfo") || path.ends_with(".iinfo"))
        {
            self.eval_args(call);
            return Fact::of_kind(ValueKind::Scalar);
        }
        let consumes = !matches!(
            attr,
            "dtype"
                | "device"
                | "shape"
                | "ndim"
                | "is_cuda"
                | "requires_grad"
                | "T"
                | "mT"
                | "H"
                | "mH"
                | "data"
        );
        let value = self.eval_not_consuming(&a.value, consumes);
        match attr {
            "dtype" => Fact::of_kind(ValueKind::DTypeValue(value.dtype)),
            "device" => Fact::of_kind(ValueKind::DeviceValue),
            "shape" | "ndim" | "is_cuda" | "requires_grad" => Fact::of_kind(ValueKind::NotTensor),
            "data" => value,
            "T" | "mT" | "H" | "mH" => {
                let range = a.attr.range;
                let code = TextRange::new(a.value.end(), a.end());
                self.view_step(value, attr, &[], range, code)
            }
            _ => Fact::unknown(),
        }
    }

    fn eval_args(&mut self, call: &ast::ExprCall) -> Vec<Fact> {
        let mut facts = Vec::with_capacity(call.arguments.args.len());
        for arg in &call.arguments.args {
            facts.push(self.eval(arg));
        }
        self.eval_keywords(call);
        facts
    }

    /// Evaluates keyword arguments; `out=x` writes x in place.
    fn eval_keywords(&mut self, call: &ast::ExprCall) {
        for kw in &call.arguments.keywords {
            let fact = self.eval(&kw.value);
            if kw.arg.as_ref().is_some_and(|a| a.id.as_str() == "out") {
                self.mark_in_place(&fact);
            }
        }
    }

    fn keyword<'c>(call: &'c ast::ExprCall, name: &str) -> Option<&'c Expr> {
        call.arguments
            .keywords
            .iter()
            .find(|k| k.arg.as_ref().is_some_and(|a| a.id.as_str() == name))
            .map(|k| &k.value)
    }

    fn eval_call(&mut self, call: &ast::ExprCall, ctx: UseCtx) -> Fact {
        match &*call.func {
            Expr::Attribute(a) => {
                if let Some(path) = self.module_path(&a.value) {
                    let full = format!("{path}.{}", a.attr.id);
                    if let Some(summary) = self.fs.summaries.get(&full).cloned() {
                        return self.summary_call(&summary, call);
                    }
                    return self.eval_module_function(&path, a.attr.id.as_str(), call, ctx);
                }
                if let (Expr::Name(recv), Some(class)) = (&*a.value, &self.class_name)
                    && matches!(recv.id.as_str(), "self" | "cls")
                {
                    let key = format!("{}.{class}.{}", self.fs.module.qualname, a.attr.id);
                    if let Some(summary) = self.fs.summaries.get(&key).cloned() {
                        return self.summary_call(&summary, call);
                    }
                }
                let method = a.attr.id.as_str();
                let consumes = !(VIEW_METHODS.contains(&method)
                    || matches!(method, "size" | "dim" | "numel" | "element_size" | "stride"));
                let recv = self.eval_not_consuming(&a.value, consumes);
                self.eval_method(&a.value, recv, &a.attr, call, ctx)
            }
            Expr::Name(n) => {
                let id = n.id.as_str();
                if !self.env.contains_key(id) {
                    let qualname = self.fs.imports.get(id).cloned().or_else(|| {
                        self.fs
                            .module_functions
                            .contains(id)
                            .then(|| format!("{}.{id}", self.fs.module.qualname))
                    });
                    if let Some(q) = qualname {
                        if let Some(summary) = self.fs.summaries.get(&q).cloned() {
                            return self.summary_call(&summary, call);
                        }
                        if let Some((module, name)) = q.rsplit_once('.')
                            && module.starts_with("torch")
                        {
                            return self.eval_module_function(module, name, call, ctx);
                        }
                    }
                }
                self.eval_args(call);
                match id {
                    "float" | "int" | "len" | "round" | "abs" | "min" | "max" | "bool" => {
                        Fact::of_kind(ValueKind::Scalar)
                    }
                    "str" | "repr" | "list" | "tuple" | "dict" | "set" | "range" | "print"
                    | "isinstance" | "getattr" | "hasattr" => Fact::of_kind(ValueKind::NotTensor),
                    _ => Fact::unknown(),
                }
            }
            _ => {
                self.eval(&call.func);
                self.eval_args(call);
                Fact::unknown()
            }
        }
    }

    /// A call of a function that returns an enlarged value: the callee's chain plus this call.
    fn summary_call(&mut self, summary: &FunctionSummary, call: &ast::ExprCall) -> Fact {
        self.eval_args(call);
        let mut map: HashMap<&str, SymExpr> = HashMap::new();
        for (param, arg) in summary.params.iter().zip(call.arguments.args.iter()) {
            if matches!(arg, Expr::Starred(_)) {
                break;
            }
            map.insert(param.as_str(), sym_expr(arg, self.fs.text));
        }
        for kw in &call.arguments.keywords {
            if let Some(name) = &kw.arg {
                map.insert(name.id.as_str(), sym_expr(&kw.value, self.fs.text));
            }
        }
        let mut enlarged = summary.enlarged.clone();
        enlarged.copy_origin = None;
        enlarged.shape = enlarged
            .shape
            .map(|s| s.substitute(&|name| map.get(name).cloned()));
        // With this call's arguments the enlargement may be by 1 everywhere: nothing grows.
        if enlarged
            .shape
            .as_ref()
            .is_some_and(|s| s.0.iter().all(Dim::is_one))
        {
            return Fact::tensor(summary.dtype, enlarged.shape);
        }
        enlarged.steps.push(Step {
            role: StepRole::Call,
            file: None,
            range: call.range(),
            code: self.fs.code(call.range()),
            receiver: None,
            stmt: self.stmt_range,
        });
        Fact {
            kind: ValueKind::Tensor,
            dtype: summary.dtype,
            shape: enlarged.shape.clone(),
            enlarged: Some(Rc::new(enlarged)),
            ..Fact::default()
        }
    }

    fn method_range(attr: &ast::Identifier, call: &ast::ExprCall) -> TextRange {
        TextRange::new(attr.range.start(), call.end())
    }

    fn eval_method(
        &mut self,
        recv_expr: &Expr,
        recv: Fact,
        attr: &ast::Identifier,
        call: &ast::ExprCall,
        ctx: UseCtx,
    ) -> Fact {
        let name = attr.id.as_str();
        let range = Self::method_range(attr, call);
        let code = TextRange::new(recv_expr.end(), call.end());
        let args: Vec<&Expr> = call.arguments.args.iter().collect();

        if recv.is_not_tensor() {
            self.eval_args(call);
            return Fact::unknown();
        }
        if matches!(
            name,
            "view"
                | "data_ptr"
                | "numpy"
                | "stride"
                | "is_contiguous"
                | "storage"
                | "untyped_storage"
        ) {
            self.mark_use(&recv, ResultUse::NeedsContiguous);
        }
        if name.ends_with('_') && name != "requires_grad_" {
            self.eval_args(call);
            self.mark_in_place(&recv);
            return recv;
        }
        if VIEW_ENLARGERS.contains(&name) || COPY_ENLARGERS.contains(&name) {
            let kind = if VIEW_ENLARGERS.contains(&name) {
                EnlargeKind::View
            } else {
                EnlargeKind::Copy
            };
            let arg_facts = self.eval_args(call);
            return self.enlarge(
                recv_expr, recv, kind, name, &args, &arg_facts, call, range, code, ctx,
            );
        }
        if name == "masked_fill" {
            // The mask is broadcast against the receiver.
            if let Some(mask) = args.first() {
                self.eval_with(mask, UseCtx::Broadcast);
            }
            for arg in args.iter().skip(1) {
                self.eval(arg);
            }
            self.eval_keywords(call);
            return Fact::tensor(recv.dtype, recv.shape.clone());
        }
        let arg_facts = self.eval_args(call);
        self.sink_receiver = Some(recv_expr.range());
        if VIEW_METHODS.contains(&name) {
            return self.view_step(recv, name, &args, range, code);
        }
        if let Some(target) = DType::from_cast_method(name)
            && args.is_empty()
        {
            return self.cast(&recv, Some(target), true, range, code);
        }
        match name {
            "to" => return self.eval_to(&recv, &args, &arg_facts, call, range, code),
            "type" => {
                let Some(arg) = args.first() else {
                    return Fact::of_kind(ValueKind::NotTensor);
                };
                let certain = matches!(arg, Expr::StringLiteral(_))
                    || matches!(arg_facts[0].kind, ValueKind::DTypeValue(_));
                let target = match arg {
                    Expr::StringLiteral(s) => {
                        let s = s.value.to_str();
                        if s.contains("cuda") {
                            return self.sink(
                                &recv,
                                SinkKind::DeviceMove,
                                range,
                                code,
                                DType::from_tensor_type_name(s),
                            );
                        }
                        DType::from_tensor_type_name(s)
                    }
                    _ => match &arg_facts[0].kind {
                        ValueKind::DTypeValue(d) => *d,
                        _ => None,
                    },
                };
                return self.cast(&recv, target, certain, range, code);
            }
            "type_as" => {
                let dtype = arg_facts.first().and_then(|f| f.dtype);
                return self.sink(
                    &recv,
                    SinkKind::DeviceMove,
                    range,
                    code,
                    dtype.or(recv.dtype),
                );
            }
            _ => {}
        }
        if DEVICE_METHODS.contains(&name) {
            return self.sink(&recv, SinkKind::DeviceMove, range, code, recv.dtype);
        }
        if MATERIALIZE_METHODS.contains(&name) {
            if recv
                .enlarged
                .as_ref()
                .is_some_and(|e| e.kind == EnlargeKind::View)
            {
                return self.sink(&recv, SinkKind::Materialize, range, code, recv.dtype);
            }
            return Fact::tensor(recv.dtype, recv.shape.clone());
        }
        let result_dtype = if returns_bool(name) {
            Some(DType::Bool)
        } else {
            recv.dtype
        };
        if UNARY_ELEMENTWISE.contains(&name) && args.is_empty() {
            return self.sink(&recv, SinkKind::Elementwise, range, code, result_dtype);
        }
        if BINARY_ELEMENTWISE.contains(&name)
            && !arg_facts.is_empty()
            && arg_facts.iter().all(|f| f.kind == ValueKind::Scalar)
            && call
                .arguments
                .keywords
                .iter()
                .all(|k| matches!(k.value, Expr::NumberLiteral(_) | Expr::UnaryOp(_)))
        {
            return self.sink(&recv, SinkKind::Elementwise, range, code, result_dtype);
        }
        match name {
            "size" | "dim" | "numel" | "item" | "element_size" | "nelement" => {
                Fact::of_kind(ValueKind::Scalar)
            }
            "numpy" | "tolist" | "data_ptr" | "stride" | "is_contiguous" => {
                Fact::of_kind(ValueKind::NotTensor)
            }
            _ if DTYPE_PRESERVING.contains(&name) => Fact::tensor(recv.dtype, recv.shape.clone()),
            _ if returns_bool(name) => Fact::tensor(Some(DType::Bool), None),
            _ if recv.kind == ValueKind::Tensor || recv.enlarged.is_some() => {
                Fact::tensor(None, None)
            }
            _ => Fact::unknown(),
        }
    }

    /// `.to(...)`: a cast when only a dtype is given, a device move otherwise.
    fn eval_to(
        &mut self,
        recv: &Fact,
        args: &[&Expr],
        arg_facts: &[Fact],
        call: &ast::ExprCall,
        range: TextRange,
        code: TextRange,
    ) -> Fact {
        let mut dtype: Option<Option<DType>> = None;
        let mut device = false;
        // Anything beyond the dtype (copy=, non_blocking=, memory_format=) makes the reorder unsafe.
        let mut certain = true;
        for (arg, fact) in args.iter().zip(arg_facts) {
            match classify_to_arg(arg, fact) {
                ToArg::Dtype(d, sure) => {
                    dtype = Some(d);
                    certain &= sure;
                }
                ToArg::Device => device = true,
                ToArg::Tensor => {
                    device = true;
                    dtype = dtype.or(Some(fact.dtype));
                }
                ToArg::Ignore => certain = false,
            }
        }
        for kw in &call.arguments.keywords {
            let Some(name) = &kw.arg else { continue };
            match name.id.as_str() {
                "dtype" => {
                    let fact = self.eval(&kw.value);
                    match classify_to_arg(&kw.value, &fact) {
                        ToArg::Dtype(d, sure) => {
                            dtype = Some(d);
                            certain &= sure;
                        }
                        _ => {
                            dtype = Some(None);
                            certain = false;
                        }
                    }
                }
                "device" => device = true,
                _ => certain = false,
            }
        }
        if device {
            let result = dtype.flatten().or(recv.dtype);
            return self.sink(recv, SinkKind::DeviceMove, range, code, result);
        }
        match dtype {
            Some(target) => self.cast(recv, target, certain, range, code),
            None => Fact::tensor(recv.dtype, recv.shape.clone()),
        }
    }

    fn cast(
        &mut self,
        recv: &Fact,
        target: Option<DType>,
        certain: bool,
        range: TextRange,
        code: TextRange,
    ) -> Fact {
        if target.is_some() && recv.dtype == target {
            // Converting to the dtype it already has returns the tensor itself: no copy.
            return recv.clone();
        }
        self.sink(
            recv,
            SinkKind::Cast { target, certain },
            range,
            code,
            target,
        )
    }

    /// An operation that writes a full-size result. When the receiver is enlarged, that is a
    /// site; either way the result is an ordinary tensor.
    fn sink(
        &mut self,
        recv: &Fact,
        kind: SinkKind,
        range: TextRange,
        code: TextRange,
        result_dtype: Option<DType>,
    ) -> Fact {
        let mut result = Fact::tensor(result_dtype, recv.shape.clone());
        if let Some(enlarged) = &recv.enlarged {
            let id = self.record_site(
                enlarged,
                kind,
                range,
                code,
                result_dtype,
                recv.shape.clone(),
            );
            result.sink_results = vec![id];
        }
        result
    }

    fn record_site(
        &mut self,
        enlarged: &Rc<Enlarged>,
        sink: SinkKind,
        range: TextRange,
        code: TextRange,
        result_dtype: Option<DType>,
        result_shape: Option<Shape>,
    ) -> SiteId {
        let key = (range.start().to_u32(), range.end().to_u32());
        if let Some(&id) = self.fs.site_index.get(&key) {
            return id;
        }
        let id = self.fs.sites.len() as SiteId;
        let code = self.fs.code(code);
        let receiver = self.sink_receiver.take();
        self.fs.sites.push(PendingSite {
            site: Site {
                sink,
                enlarged: (**enlarged).clone(),
                sink_step: Step {
                    role: StepRole::Sink,
                    file: None,
                    range,
                    code,
                    receiver,
                    stmt: self.stmt_range,
                },
                stmt_range: self.stmt_range,
                result_dtype,
                result_shape,
                scope_range: self.scope_range,
                result_escapes: false,
                result_needs_contiguous: false,
            },
            written_in_place: false,
            discarded: false,
            copy_origin: enlarged.copy_origin,
        });
        self.fs.site_index.insert(key, id);
        id
    }

    #[allow(clippy::too_many_arguments)]
    fn enlarge(
        &mut self,
        recv_expr: &Expr,
        recv: Fact,
        kind: EnlargeKind,
        op: &str,
        args: &[&Expr],
        arg_facts: &[Fact],
        call: &ast::ExprCall,
        range: TextRange,
        code: TextRange,
        ctx: UseCtx,
    ) -> Fact {
        let text = self.fs.text;
        // `re.Match.expand(r"\1")`, `str`-taking APIs: not a tensor.
        if args
            .iter()
            .any(|a| matches!(a, Expr::StringLiteral(_) | Expr::FString(_)))
            || recv.is_not_tensor()
        {
            return Fact::unknown();
        }
        let recv_code = collapse_code(text.get(recv_expr.range().to_std_range()).unwrap_or(""));
        let sizes = enlarger_sizes(op, args, call, text, &recv_code);
        let new_shape = match &sizes {
            Sizes::NotEnlarging => {
                return Fact {
                    enlarged: recv.enlarged.clone(),
                    sink_results: recv.sink_results.clone(),
                    kind: ValueKind::Tensor,
                    ..recv
                };
            }
            Sizes::Dims(dims) => match kind {
                EnlargeKind::View => expand_shape(dims, recv.shape.as_ref()),
                EnlargeKind::Copy => repeat_shape(op, dims, recv.shape.as_ref()),
            },
            Sizes::LikeOther => {
                if op == "expand_as" {
                    arg_facts.first().and_then(|f| f.shape.clone())
                } else {
                    None
                }
            }
            Sizes::Unknown => None,
        };
        if let (EnlargeKind::View, Sizes::Dims(dims), Some(src)) =
            (kind, &sizes, recv.shape.as_ref())
            && dims.len() == src.rank()
            && dims.iter().zip(&src.0).all(|(d, s)| match d {
                SizeArg::Keep => true,
                SizeArg::Size(e) => matches!(s, Dim::Size(se) if se == e),
            })
        {
            // Same shape as the source: a no-op view.
            return Fact {
                kind: ValueKind::Tensor,
                ..recv
            };
        }
        let mut steps = recv
            .enlarged
            .as_ref()
            .map(|e| e.steps.clone())
            .unwrap_or_default();
        let code = self.fs.code(code);
        steps.push(Step {
            role: StepRole::Enlarge,
            file: None,
            range,
            code: code.clone(),
            receiver: Some(recv_expr.range()),
            stmt: self.stmt_range,
        });
        let receiver_code = recv
            .enlarged
            .as_ref()
            .map(|e| e.receiver_code.clone())
            .unwrap_or(recv_code);
        let enlarged = Enlarged {
            kind,
            op: op.to_string(),
            steps,
            shape: new_shape.clone(),
            receiver_code,
            may: recv.enlarged.as_ref().is_some_and(|e| e.may),
            copy_origin: match kind {
                EnlargeKind::View => None,
                EnlargeKind::Copy => {
                    let key = (range.start().to_u32(), range.end().to_u32());
                    let next = self.fs.copy_uses.len() as u32;
                    let id = *self.fs.copy_index.entry(key).or_insert(next);
                    if id == next {
                        self.fs.copy_uses.push(Vec::new());
                    }
                    Some(id)
                }
            },
        };
        let mut fact = Fact {
            kind: ValueKind::Tensor,
            dtype: recv.dtype,
            shape: new_shape.clone(),
            enlarged: Some(Rc::new(enlarged.clone())),
            sink_results: if kind == EnlargeKind::View {
                recv.sink_results.clone()
            } else {
                Vec::new()
            },
            repeat_candidate: None,
            unit_dims: Vec::new(),
        };
        if op == "repeat"
            && let Sizes::Dims(dims) = &sizes
            && let Some(expand_args) =
                repeat_as_expand_args(dims, recv.shape.as_ref(), &recv.unit_dims)
        {
            let key = (range.start().to_u32(), range.end().to_u32());
            let id = match self.fs.repeat_index.get(&key) {
                Some(&id) => id,
                None => {
                    let id = self.fs.repeats.len() as u32;
                    self.fs.repeats.push(RepeatCandidate {
                        enlarged,
                        range,
                        receiver: recv_expr.range(),
                        scope_range: self.scope_range,
                        code,
                        stmt_range: self.stmt_range,
                        expand_args,
                        dtype: recv.dtype,
                        shape: new_shape,
                        broadcast_use: false,
                        other_use: false,
                    });
                    self.fs.repeat_index.insert(key, id);
                    id
                }
            };
            fact.repeat_candidate = Some(id);
            self.record_use(&fact, ctx);
        }
        fact
    }

    /// A view op: an enlarged value stays enlarged (one more chain step) unless the op merges
    /// its dims, which needs a copy.
    fn view_step(
        &mut self,
        recv: Fact,
        op: &str,
        args: &[&Expr],
        range: TextRange,
        code: TextRange,
    ) -> Fact {
        let text = self.fs.text;
        let new_shape = view_shape(op, args, recv.shape.as_ref(), text);
        let Some(enlarged) = recv.enlarged.clone() else {
            let unit_dims = match (op, &recv.shape, args.first()) {
                ("unsqueeze", None, Some(arg)) => literal_int(arg).into_iter().collect(),
                _ => Vec::new(),
            };
            return Fact {
                kind: if recv.kind == ValueKind::Unknown {
                    ValueKind::Unknown
                } else {
                    ValueKind::Tensor
                },
                shape: new_shape,
                repeat_candidate: None,
                unit_dims,
                ..recv
            };
        };
        // A repeated copy is contiguous: every view op of it is free, whatever it merges.
        if matches!(op, "view" | "reshape" | "flatten") && enlarged.kind == EnlargeKind::View {
            let in_rank = recv.shape.as_ref().map(Shape::rank);
            let merges = match op {
                "flatten" => flatten_merges(args, in_rank),
                _ => match (size_arg_count(args), in_rank) {
                    (Some(out), Some(inp)) => Some(out < inp),
                    _ => None,
                },
            };
            match merges {
                Some(false) => {}
                Some(true) if op != "view" && enlarged.kind == EnlargeKind::View => {
                    // reshape/flatten of a broadcast view across its stride-0 dims copies it.
                    return self.sink(&recv, SinkKind::Materialize, range, code, recv.dtype);
                }
                // A merging `view` fails or needs the copy anyway; unknown ranks end the chain.
                _ => return Fact::tensor(recv.dtype, new_shape),
            }
        }
        let mut e = (*enlarged).clone();
        e.steps.push(Step {
            role: StepRole::View,
            file: None,
            range,
            code: self.fs.code(code),
            receiver: None,
            stmt: self.stmt_range,
        });
        e.shape = new_shape.clone();
        Fact {
            kind: ValueKind::Tensor,
            shape: new_shape,
            enlarged: Some(Rc::new(e)),
            ..recv
        }
    }

    fn eval_subscript(&mut self, s: &ast::ExprSubscript) -> Fact {
        let value = self.eval_not_consuming(&s.value, false);
        self.eval(&s.slice);
        if value.is_not_tensor() {
            return Fact::unknown();
        }
        let elts: Vec<&Expr> = match &*s.slice {
            Expr::Tuple(t) => t.elts.iter().collect(),
            other => vec![other],
        };
        let kinds: Vec<Index> = elts.iter().map(|e| classify_index(e)).collect();
        // `x[:1]`, `x[2:3]`: one element of a dim that may be the enlarged one.
        let takes_one = elts.iter().any(|e| slice_takes_one(e));
        let basic = kinds
            .iter()
            .all(|k| !matches!(k, Index::Int | Index::Other));
        let shape = index_shape(&kinds, value.shape.as_ref());
        match &value.enlarged {
            Some(enlarged) if basic && !takes_one => {
                let mut e = (**enlarged).clone();
                e.steps.push(Step {
                    role: StepRole::View,
                    file: None,
                    range: TextRange::new(s.value.end(), s.end()),
                    code: self.fs.code(TextRange::new(s.value.end(), s.end())),
                    receiver: None,
                    stmt: self.stmt_range,
                });
                e.shape = shape.clone();
                Fact {
                    kind: ValueKind::Tensor,
                    dtype: value.dtype,
                    shape,
                    enlarged: Some(Rc::new(e)),
                    sink_results: value.sink_results.clone(),
                    repeat_candidate: None,
                    unit_dims: Vec::new(),
                }
            }
            _ => Fact {
                kind: value.kind.clone(),
                dtype: value.dtype,
                shape,
                enlarged: None,
                sink_results: if basic {
                    value.sink_results.clone()
                } else {
                    Vec::new()
                },
                repeat_candidate: None,
                unit_dims: Vec::new(),
            },
        }
    }

    fn eval_binop(&mut self, b: &ast::ExprBinOp) -> Fact {
        // `[x] * n` is list repetition, not arithmetic.
        if matches!(&*b.left, Expr::List(_) | Expr::Tuple(_)) {
            self.eval(&b.left);
            self.eval(&b.right);
            return Fact::of_kind(ValueKind::NotTensor);
        }
        let left = self.eval_with(&b.left, UseCtx::Broadcast);
        let right = self.eval_with(&b.right, UseCtx::Broadcast);
        if b.op != Operator::MatMult {
            let (enlarged_side, scalar_side) = if left.enlarged.is_some() {
                (&left, &right)
            } else {
                (&right, &left)
            };
            if enlarged_side.enlarged.is_some() && scalar_side.kind == ValueKind::Scalar {
                let dtype = arithmetic_dtype(enlarged_side.dtype, b.op, scalar_is_float(b));
                let recv = enlarged_side.clone();
                let code = b.range;
                self.sink_receiver = None;
                return self.sink(&recv, SinkKind::Elementwise, b.range, code, dtype);
            }
        }
        match (&left.kind, &right.kind) {
            (ValueKind::Scalar, ValueKind::Scalar) => Fact::of_kind(ValueKind::Scalar),
            (ValueKind::Tensor, ValueKind::Scalar) => Fact::tensor(
                arithmetic_dtype(left.dtype, b.op, scalar_is_float(b)),
                left.shape.clone(),
            ),
            (ValueKind::Scalar, ValueKind::Tensor) => Fact::tensor(
                arithmetic_dtype(right.dtype, b.op, scalar_is_float(b)),
                right.shape.clone(),
            ),
            (ValueKind::Tensor, _) | (_, ValueKind::Tensor) => {
                let dtype = if left.dtype == right.dtype {
                    left.dtype
                } else {
                    None
                };
                Fact::tensor(dtype, None)
            }
            _ => Fact::unknown(),
        }
    }

    fn eval_unary(&mut self, u: &ast::ExprUnaryOp) -> Fact {
        let operand = self.eval(&u.operand);
        match u.op {
            UnaryOp::Not => Fact::of_kind(ValueKind::Scalar),
            UnaryOp::UAdd => operand,
            UnaryOp::Invert | UnaryOp::USub => {
                if operand.enlarged.is_some() {
                    let code = u.range;
                    self.sink_receiver = None;
                    return self.sink(
                        &operand,
                        SinkKind::Elementwise,
                        u.range,
                        code,
                        operand.dtype,
                    );
                }
                match operand.kind {
                    ValueKind::Scalar => Fact::of_kind(ValueKind::Scalar),
                    ValueKind::Tensor => Fact::tensor(operand.dtype, operand.shape.clone()),
                    _ => Fact {
                        dtype: operand.dtype,
                        ..Fact::unknown()
                    },
                }
            }
        }
    }

    fn eval_compare(&mut self, c: &ast::ExprCompare) -> Fact {
        let left = self.eval_with(&c.left, UseCtx::Broadcast);
        let mut facts = vec![left];
        for comparator in &c.comparators {
            facts.push(self.eval_with(comparator, UseCtx::Broadcast));
        }
        if c.ops
            .iter()
            .any(|op| matches!(op, CmpOp::Is | CmpOp::IsNot | CmpOp::In | CmpOp::NotIn))
        {
            return Fact::of_kind(ValueKind::Scalar);
        }
        if facts.len() == 2 {
            let (a, b) = (&facts[0], &facts[1]);
            let enlarged = if a.enlarged.is_some() && b.kind == ValueKind::Scalar {
                Some(a)
            } else if b.enlarged.is_some() && a.kind == ValueKind::Scalar {
                Some(b)
            } else {
                None
            };
            if let Some(recv) = enlarged {
                let recv = recv.clone();
                let code = c.range;
                self.sink_receiver = None;
                return self.sink(
                    &recv,
                    SinkKind::Elementwise,
                    c.range,
                    code,
                    Some(DType::Bool),
                );
            }
        }
        if facts.iter().all(|f| f.kind == ValueKind::Scalar) {
            return Fact::of_kind(ValueKind::Scalar);
        }
        let is_tensor = facts
            .iter()
            .any(|f| f.kind == ValueKind::Tensor || f.enlarged.is_some());
        Fact {
            kind: if is_tensor {
                ValueKind::Tensor
            } else {
                ValueKind::Unknown
            },
            dtype: Some(DType::Bool),
            ..Fact::default()
        }
    }

    /// Functions of a module: `torch.*` (tensors), numpy and friends (not tensors).
    fn eval_module_function(
        &mut self,
        module: &str,
        name: &str,
        call: &ast::ExprCall,
        ctx: UseCtx,
    ) -> Fact {
        if !module.starts_with("torch") {
            self.eval_args(call);
            return match module {
                "math" => Fact::of_kind(ValueKind::Scalar),
                _ if is_non_tensor_module(module) => Fact::of_kind(ValueKind::NotTensor),
                _ => Fact::unknown(),
            };
        }
        let args: Vec<&Expr> = call.arguments.args.iter().collect();
        let range = call.range();
        let code = range;
        self.sink_receiver = None;
        match name {
            "broadcast_to" | "repeat_interleave" | "tile"
                if args.len() >= 2 || (name != "repeat_interleave" && !args.is_empty()) =>
            {
                let recv_expr = args[0];
                let recv = self.eval(recv_expr);
                let rest: Vec<&Expr> = args[1..].to_vec();
                let mut rest_facts = Vec::new();
                for a in &rest {
                    rest_facts.push(self.eval(a));
                }
                self.eval_keywords(call);
                let kind = if name == "broadcast_to" {
                    EnlargeKind::View
                } else {
                    EnlargeKind::Copy
                };
                return self.enlarge(
                    recv_expr,
                    recv,
                    kind,
                    name,
                    &rest,
                    &rest_facts,
                    call,
                    range,
                    code,
                    ctx,
                );
            }
            "cat" | "concat" | "concatenate" => {
                if let Some(repeated) = args
                    .first()
                    .and_then(|a| repeated_list_element(a, self.fs.text))
                {
                    let recv = self.eval(repeated);
                    self.eval_keywords(call);
                    if let Some(count) = args.first().and_then(|a| list_repeat_count(a)) {
                        self.eval(count);
                    }
                    return self.enlarge(
                        repeated,
                        recv,
                        EnlargeKind::Copy,
                        "cat",
                        &[],
                        &[],
                        call,
                        range,
                        code,
                        ctx,
                    );
                }
            }
            "clone" if !args.is_empty() => {
                let recv = self.eval(args[0]);
                self.eval_args_from(call, 1);
                if recv
                    .enlarged
                    .as_ref()
                    .is_some_and(|e| e.kind == EnlargeKind::View)
                {
                    return self.sink(&recv, SinkKind::Materialize, range, code, recv.dtype);
                }
                return Fact::tensor(recv.dtype, recv.shape.clone());
            }
            "where" if args.len() == 3 => {
                let facts: Vec<Fact> = args
                    .iter()
                    .map(|a| self.eval_with(a, UseCtx::Broadcast))
                    .collect();
                let enlarged: Vec<&Fact> = facts.iter().filter(|f| f.enlarged.is_some()).collect();
                if enlarged.len() == 1
                    && facts.iter().filter(|f| f.kind == ValueKind::Scalar).count() == 2
                {
                    let recv = enlarged[0].clone();
                    let dtype = if args[1..].iter().any(|a| is_float_scalar(a)) {
                        Some(DType::Float32)
                    } else {
                        None
                    };
                    return self.sink(&recv, SinkKind::Elementwise, range, code, dtype);
                }
                return Fact::tensor(None, None);
            }
            _ => {}
        }
        if (UNARY_ELEMENTWISE.contains(&name) || BINARY_ELEMENTWISE.contains(&name))
            && !args.is_empty()
        {
            let first = self.eval(args[0]);
            let rest: Vec<Fact> = args[1..].iter().map(|a| self.eval(a)).collect();
            self.eval_keywords(call);
            let dtype = if returns_bool(name) {
                Some(DType::Bool)
            } else {
                first.dtype
            };
            if first.enlarged.is_some() && rest.iter().all(|f| f.kind == ValueKind::Scalar) {
                return self.sink(&first, SinkKind::Elementwise, range, code, dtype);
            }
            return Fact::tensor(dtype, None);
        }
        let arg_facts = self.eval_args(call);
        let dtype_kw = Self::keyword(call, "dtype").map(|e| dtype_of_expr(e, self));
        match name {
            "finfo" | "iinfo" | "Size" | "is_tensor" | "no_grad" | "device" if name != "device" => {
                Fact::of_kind(ValueKind::NotTensor)
            }
            "device" => Fact::of_kind(ValueKind::DeviceValue),
            "arange" => {
                let dtype = dtype_kw.flatten().or_else(|| {
                    if args.iter().any(|a| is_float_scalar(a)) {
                        Some(DType::Float32)
                    } else {
                        Some(DType::Int64)
                    }
                });
                let shape = (args.len() == 1)
                    .then(|| Shape(vec![Dim::Size(sym_expr(args[0], self.fs.text))]));
                Fact::tensor(dtype, shape)
            }
            _ if is_sized_factory(name) => {
                let default = match name {
                    "full" => args.get(1).and_then(|a| match a {
                        Expr::BooleanLiteral(_) => Some(DType::Bool),
                        Expr::NumberLiteral(n) => match n.value {
                            Number::Int(_) => Some(DType::Int64),
                            _ => Some(DType::Float32),
                        },
                        _ => None,
                    }),
                    "randint" => Some(DType::Int64),
                    _ => Some(DType::Float32),
                };
                let size_args: &[&Expr] = match name {
                    "full" => &args[..args.len().min(1)],
                    "randint" => &[],
                    _ => &args,
                };
                Fact::tensor(
                    dtype_kw.flatten().or(default),
                    factory_shape(size_args, self.fs.text),
                )
            }
            "ones_like" | "zeros_like" | "empty_like" | "full_like" | "rand_like"
            | "randn_like" => {
                let first = arg_facts.first();
                Fact::tensor(
                    dtype_kw.flatten().or(first.and_then(|f| f.dtype)),
                    first.and_then(|f| f.shape.clone()),
                )
            }
            "tril" | "triu" | "flip" | "roll" => {
                let first = arg_facts.first();
                Fact::tensor(
                    first.and_then(|f| f.dtype),
                    first.and_then(|f| f.shape.clone()),
                )
            }
            "eye" => Fact::tensor(dtype_kw.flatten().or(Some(DType::Float32)), None),
            "tensor" | "as_tensor" | "from_numpy" => Fact::tensor(dtype_kw.flatten(), None),
            _ if returns_bool(name) => Fact::tensor(Some(DType::Bool), None),
            _ => Fact::tensor(None, None),
        }
    }

    fn eval_args_from(&mut self, call: &ast::ExprCall, skip: usize) {
        for arg in call.arguments.args.iter().skip(skip) {
            self.eval(arg);
        }
        self.eval_keywords(call);
    }
}

/// Evaluates each direct child expression with the walker (for expression kinds without rules of
/// their own: f-strings, dicts, slices, awaits, ...).
struct ChildEval<'w, 's, 'a> {
    walker: &'w mut Walker<'s, 'a>,
}

impl<'e> Visitor<'e> for ChildEval<'_, '_, '_> {
    fn visit_expr(&mut self, expr: &'e Expr) {
        self.walker.eval(expr);
    }
}

/// Analyzes a function body in a fresh scope; records a summary when it returns an enlarged value.
fn analyze_function(
    fs: &mut FileState<'_>,
    def: &ast::StmtFunctionDef,
    class_name: Option<String>,
    summarize: bool,
) {
    // A function that names no enlarger and calls no summarized helper cannot hold a site or
    // return an enlarged value (its parameters start unknown): skip its walk.
    let body_text = fs.text.get(def.range.to_std_range()).unwrap_or("");
    if !super::mentions_enlarger(body_text)
        && (fs.summaries.is_empty() || !fs.summaries.short_names().any(|n| body_text.contains(n)))
    {
        return;
    }
    let is_static = def
        .decorator_list
        .iter()
        .any(|d| matches!(&d.expression, Expr::Name(n) if n.id.as_str() == "staticmethod"));
    let mut params = Vec::new();
    let mut env = Env::default();
    for (i, param) in def.parameters.iter_non_variadic_params().enumerate() {
        let name = param.parameter.name.id.to_string();
        let mut fact = match &param.parameter.annotation {
            Some(annotation) => annotation_fact(annotation),
            None => Fact::unknown(),
        };
        if fact.kind == ValueKind::Unknown {
            if name == "dtype" || name.ends_with("_dtype") {
                fact = Fact::of_kind(ValueKind::DTypeGuess);
            } else if name == "device" || name.ends_with("_device") {
                fact = Fact::of_kind(ValueKind::DeviceValue);
            }
        }
        let is_receiver = i == 0 && class_name.is_some() && !is_static;
        if !is_receiver {
            params.push(name.clone());
        }
        env.insert(name, fact);
    }
    for param in [&def.parameters.vararg, &def.parameters.kwarg]
        .into_iter()
        .flatten()
    {
        env.insert(
            param.name.id.to_string(),
            Fact::of_kind(ValueKind::NotTensor),
        );
    }
    let returns = {
        let mut walker = Walker::new(fs, class_name.clone(), true, def.range);
        walker.env = env;
        walker.run_body(&def.body);
        walker.returns.take().unwrap_or_default()
    };
    if !(summarize && fs.want_summaries) {
        return;
    }
    let Some(first) = returns.iter().find_map(|f| f.enlarged.clone()) else {
        return;
    };
    let mut enlarged = (*first).clone();
    enlarged.may |= returns.iter().any(|f| f.enlarged.is_none());
    for step in &mut enlarged.steps {
        if step.file.is_none() {
            step.file = Some(fs.module.display_path.clone());
        }
    }
    let dtype = returns
        .iter()
        .find(|f| f.enlarged.is_some())
        .and_then(|f| f.dtype);
    let qualname = match &class_name {
        Some(class) => format!("{}.{class}.{}", fs.module.qualname, def.name.id),
        None => format!("{}.{}", fs.module.qualname, def.name.id),
    };
    fs.summaries_out.push(FunctionSummary {
        qualname,
        is_method: class_name.is_some(),
        params,
        enlarged,
        dtype,
    });
}

fn join_env(a: &Env, b: &Env) -> Env {
    let mut out = Env::with_capacity_and_hasher(a.len().max(b.len()), Default::default());
    let unknown = Fact::unknown();
    for (key, fa) in a {
        let joined = fa.join(b.get(key).unwrap_or(&unknown));
        if joined != unknown {
            out.insert(key.clone(), joined);
        }
    }
    for (key, fb) in b {
        if !a.contains_key(key) {
            let joined = fb.join(&unknown);
            if joined != unknown {
                out.insert(key.clone(), joined);
            }
        }
    }
    out
}

/// `x`, `self.mask`, `a.b.c`: the key a value is tracked under.
fn dotted_key(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Name(n) => Some(n.id.to_string()),
        Expr::Attribute(a) => {
            let base = dotted_key(&a.value)?;
            if base.matches('.').count() >= 3 {
                return None;
            }
            Some(format!("{base}.{}", a.attr.id))
        }
        _ => None,
    }
}

fn is_number_literal(expr: &Expr) -> bool {
    match expr {
        Expr::NumberLiteral(_) => true,
        Expr::UnaryOp(u) => {
            matches!(u.op, UnaryOp::USub | UnaryOp::UAdd) && is_number_literal(&u.operand)
        }
        _ => false,
    }
}

fn is_float_scalar(expr: &Expr) -> bool {
    match expr {
        Expr::NumberLiteral(n) => matches!(n.value, Number::Float(_)),
        Expr::UnaryOp(u) => is_float_scalar(&u.operand),
        Expr::Call(c) => matches!(&*c.func, Expr::Name(n) if n.id.as_str() == "float"),
        Expr::Attribute(a) => matches!(a.attr.id.as_str(), "min" | "max" | "inf" | "eps" | "tiny"),
        _ => false,
    }
}

fn scalar_is_float(b: &ast::ExprBinOp) -> bool {
    is_float_scalar(&b.left) || is_float_scalar(&b.right)
}

fn arithmetic_dtype(tensor: Option<DType>, op: Operator, float_scalar: bool) -> Option<DType> {
    match tensor {
        Some(d) if d.is_floating() => Some(d),
        Some(DType::Bool)
            if matches!(op, Operator::BitAnd | Operator::BitOr | Operator::BitXor) =>
        {
            Some(DType::Bool)
        }
        _ if op == Operator::Div || float_scalar => Some(DType::Float32),
        other => other,
    }
}

/// The fact an annotation gives a parameter.
fn annotation_fact(annotation: &Expr) -> Fact {
    let text = match annotation {
        Expr::Attribute(a) => a.attr.id.to_string(),
        Expr::Name(n) => n.id.to_string(),
        Expr::StringLiteral(s) => s
            .value
            .to_str()
            .rsplit('.')
            .next()
            .unwrap_or("")
            .to_string(),
        _ => return Fact::unknown(),
    };
    match text.as_str() {
        "dtype" => Fact::of_kind(ValueKind::DTypeValue(None)),
        "device" => Fact::of_kind(ValueKind::DeviceValue),
        "int" | "float" => Fact::of_kind(ValueKind::Scalar),
        "str" | "bool" | "list" | "tuple" | "dict" => Fact::of_kind(ValueKind::NotTensor),
        "Tensor" | "FloatTensor" | "LongTensor" | "BoolTensor" => Fact::tensor(
            match text.as_str() {
                "FloatTensor" => Some(DType::Float32),
                "LongTensor" => Some(DType::Int64),
                "BoolTensor" => Some(DType::Bool),
                _ => None,
            },
            None,
        ),
        _ => Fact::unknown(),
    }
}

enum ToArg {
    /// A dtype; the flag says whether that is certain (not just judged by a name).
    Dtype(Option<DType>, bool),
    Device,
    Tensor,
    Ignore,
}

/// What a positional argument of `.to(...)` is.
fn classify_to_arg(arg: &Expr, fact: &Fact) -> ToArg {
    match &fact.kind {
        ValueKind::DTypeValue(d) => return ToArg::Dtype(*d, true),
        ValueKind::DTypeGuess => return ToArg::Dtype(None, false),
        ValueKind::DeviceValue => return ToArg::Device,
        _ => {}
    }
    match arg {
        Expr::StringLiteral(_) | Expr::NumberLiteral(_) => return ToArg::Device,
        Expr::BooleanLiteral(_) | Expr::NoneLiteral(_) => return ToArg::Ignore,
        Expr::Attribute(a) if a.attr.id.as_str() == "dtype" => return ToArg::Dtype(None, true),
        _ => {}
    }
    let last = match arg {
        Expr::Name(n) => n.id.as_str(),
        Expr::Attribute(a) => a.attr.id.as_str(),
        _ => "",
    };
    if last == "dtype" || last.ends_with("_dtype") || last.ends_with("dtype") {
        ToArg::Dtype(None, false)
    } else if last.contains("device") {
        ToArg::Device
    } else {
        ToArg::Tensor
    }
}

fn dtype_of_expr(expr: &Expr, walker: &Walker<'_, '_>) -> Option<DType> {
    match expr {
        Expr::Attribute(a) => {
            let path = walker.module_path(&a.value)?;
            if path.starts_with("torch") {
                DType::from_torch_name(a.attr.id.as_str())
            } else {
                None
            }
        }
        _ => None,
    }
}

/// The size arguments of an enlarger.
enum SizeArg {
    /// `-1`: keep the source's size.
    Keep,
    Size(SymExpr),
}

enum Sizes {
    NotEnlarging,
    Dims(Vec<SizeArg>),
    /// `expand_as(y)`, `expand(y.shape)`: y's shape.
    LikeOther,
    Unknown,
}

/// The value of an integer literal (`3`, `-1`).
fn literal_int(expr: &Expr) -> Option<i64> {
    match expr {
        Expr::NumberLiteral(n) => match &n.value {
            Number::Int(i) => i.as_i64(),
            _ => None,
        },
        Expr::UnaryOp(u) if u.op == UnaryOp::USub => literal_int(&u.operand).map(|v| -v),
        _ => None,
    }
}

fn is_literal_int(expr: &Expr, value: i64) -> bool {
    match expr {
        Expr::NumberLiteral(n) => matches!(&n.value, Number::Int(i) if i.as_i64() == Some(value)),
        Expr::UnaryOp(u) if u.op == UnaryOp::USub => is_literal_int(&u.operand, -value),
        _ => false,
    }
}

/// `recv.shape`, `recv.size()`, `*recv.shape`: the code of `recv`.
fn shape_source(expr: &Expr, text: &str) -> Option<String> {
    let inner = match expr {
        Expr::Starred(s) => &*s.value,
        other => other,
    };
    let base = match inner {
        Expr::Attribute(a) if a.attr.id.as_str() == "shape" => &*a.value,
        Expr::Call(c) if c.arguments.args.is_empty() => match &*c.func {
            Expr::Attribute(a) if a.attr.id.as_str() == "size" => &*a.value,
            _ => return None,
        },
        _ => return None,
    };
    Some(collapse_code(
        text.get(base.range().to_std_range()).unwrap_or(""),
    ))
}

fn enlarger_sizes(
    op: &str,
    args: &[&Expr],
    call: &ast::ExprCall,
    text: &str,
    recv_code: &str,
) -> Sizes {
    match op {
        "expand_as" => {
            return match args.first() {
                Some(other)
                    if collapse_code(text.get(other.range().to_std_range()).unwrap_or(""))
                        == recv_code =>
                {
                    Sizes::NotEnlarging
                }
                Some(_) => Sizes::LikeOther,
                None => Sizes::Unknown,
            };
        }
        "repeat_interleave" => {
            let repeats = args
                .first()
                .copied()
                .or_else(|| Walker::keyword(call, "repeats"));
            return match repeats {
                None => Sizes::NotEnlarging,
                Some(r) if is_literal_int(r, 1) => Sizes::NotEnlarging,
                Some(_) => Sizes::Unknown,
            };
        }
        _ => {}
    }
    let mut elts: Vec<&Expr> = match args {
        [single] => match single {
            Expr::Tuple(t) => t.elts.iter().collect(),
            Expr::List(t) => t.elts.iter().collect(),
            other => vec![*other],
        },
        many => many.to_vec(),
    };
    if elts.is_empty()
        && let Some(size) = Walker::keyword(call, "size").or_else(|| Walker::keyword(call, "dims"))
    {
        elts = vec![size];
    }
    if elts.len() == 1
        && let Some(source) = shape_source(elts[0], text)
    {
        return if source == recv_code {
            Sizes::NotEnlarging
        } else {
            Sizes::LikeOther
        };
    }
    if elts.is_empty() || elts.iter().any(|e| matches!(e, Expr::Starred(_))) {
        return Sizes::Unknown;
    }
    // `expand(shape)`, `expand((b, 1) + x.shape[1:])`: a whole size held in one expression.
    if let [single] = elts.as_slice()
        && !matches!(single, Expr::NumberLiteral(_) | Expr::UnaryOp(_))
        && args.len() == 1
    {
        return Sizes::Unknown;
    }
    if elts
        .iter()
        .all(|e| is_literal_int(e, 1) || is_literal_int(e, -1))
    {
        return Sizes::NotEnlarging;
    }
    Sizes::Dims(
        elts.iter()
            .map(|e| {
                if is_literal_int(e, -1) {
                    SizeArg::Keep
                } else {
                    SizeArg::Size(sym_expr(e, text))
                }
            })
            .collect(),
    )
}

/// The shape `expand(dims)` gives, aligning the source's dims from the right.
fn expand_shape(dims: &[SizeArg], source: Option<&Shape>) -> Option<Shape> {
    let k = dims.len();
    Some(Shape(
        dims.iter()
            .enumerate()
            .map(|(i, d)| match d {
                SizeArg::Size(e) => Dim::Size(e.clone()),
                SizeArg::Keep => source
                    .and_then(|s| {
                        let offset = k.checked_sub(s.rank())?;
                        i.checked_sub(offset).and_then(|j| s.0.get(j).cloned())
                    })
                    .unwrap_or(Dim::Unknown),
            })
            .collect(),
    ))
}

/// The shape `repeat(counts)` gives, when the source's rank is known.
fn repeat_shape(op: &str, counts: &[SizeArg], source: Option<&Shape>) -> Option<Shape> {
    if op != "repeat" && op != "tile" {
        return None;
    }
    let source = source?;
    let k = counts.len();
    let r = source.rank();
    if k < r {
        return None;
    }
    Some(Shape(
        counts
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let src = if i >= k - r {
                    Some(&source.0[i - (k - r)])
                } else {
                    None
                };
                let count = match c {
                    SizeArg::Size(e) => e.clone(),
                    SizeArg::Keep => return Dim::Unknown,
                };
                match src {
                    None => Dim::Size(count),
                    Some(d) if count == SymExpr::Num(1) => d.clone(),
                    Some(Dim::Size(s)) if *s == SymExpr::Num(1) => Dim::Size(count),
                    Some(Dim::Size(s)) => {
                        Dim::Size(SymExpr::Mul(Box::new(count), Box::new(s.clone())))
                    }
                    Some(Dim::Unknown) => Dim::Unknown,
                }
            })
            .collect(),
    ))
}

/// For OOM121: the `expand` arguments equivalent to this `repeat`, when every repeated dim of the
/// source is known to be 1.
fn repeat_as_expand_args(
    counts: &[SizeArg],
    source: Option<&Shape>,
    unit_dims: &[i64],
) -> Option<String> {
    let k = counts.len();
    // Unknown rank with dims known to be 1: take the rank to be the number of counts (a repeat
    // with fewer counts than dims is an error, and one that adds dims is rare).
    let assumed;
    let source = match source {
        Some(s) => s,
        None if !unit_dims.is_empty() => {
            let mut dims = vec![Dim::Unknown; k];
            for &u in unit_dims {
                let pos = if u < 0 { k as i64 + u } else { u };
                dims[usize::try_from(pos).ok().filter(|p| *p < k)?] = Dim::Size(SymExpr::Num(1));
            }
            assumed = Shape(dims);
            &assumed
        }
        None => return None,
    };
    let r = source.rank();
    // A repeat that adds leading dims could be misaligned with a guessed rank: only same-rank
    // repeats are suggested.
    if k != r {
        return None;
    }
    let mut out = Vec::with_capacity(k);
    for (i, c) in counts.iter().enumerate() {
        let count = match c {
            SizeArg::Size(e) => e,
            SizeArg::Keep => return None,
        };
        if i < k - r {
            out.push(count.to_string());
        } else if *count == SymExpr::Num(1) {
            out.push("-1".to_string());
        } else if source.0[i - (k - r)].is_one() {
            out.push(count.to_string());
        } else {
            return None;
        }
    }
    // Repeating nothing is not worth a suggestion.
    if out.iter().all(|a| a == "-1" || a == "1") {
        return None;
    }
    Some(out.join(", "))
}

/// How many dims a `view`/`reshape` call asks for, when that is clear.
fn size_arg_count(args: &[&Expr]) -> Option<usize> {
    match args {
        [Expr::Tuple(t)] => {
            (!t.elts.iter().any(|e| matches!(e, Expr::Starred(_)))).then_some(t.elts.len())
        }
        [Expr::List(t)] => {
            (!t.elts.iter().any(|e| matches!(e, Expr::Starred(_)))).then_some(t.elts.len())
        }
        [Expr::NumberLiteral(_) | Expr::Name(_) | Expr::BinOp(_) | Expr::UnaryOp(_)] => Some(1),
        [_] => None,
        many if !many.iter().any(|e| matches!(e, Expr::Starred(_))) => Some(many.len()),
        _ => None,
    }
}

fn flatten_merges(args: &[&Expr], rank: Option<usize>) -> Option<bool> {
    let rank = rank?;
    let norm = |e: &Expr| -> Option<i64> {
        let v = match e {
            Expr::NumberLiteral(n) => match &n.value {
                Number::Int(i) => i.as_i64()?,
                _ => return None,
            },
            Expr::UnaryOp(u) if u.op == UnaryOp::USub => match &*u.operand {
                Expr::NumberLiteral(n) => match &n.value {
                    Number::Int(i) => -(i.as_i64()?),
                    _ => return None,
                },
                _ => return None,
            },
            _ => return None,
        };
        Some(if v < 0 { v + rank as i64 } else { v })
    };
    let start = match args.first() {
        Some(e) => norm(e)?,
        None => 0,
    };
    let end = match args.get(1) {
        Some(e) => norm(e)?,
        None => rank as i64 - 1,
    };
    Some(end > start)
}

/// The shape after a view op, when it can be told.
fn view_shape(op: &str, args: &[&Expr], shape: Option<&Shape>, text: &str) -> Option<Shape> {
    let int_arg = |i: usize| -> Option<i64> {
        match args.get(i)? {
            Expr::NumberLiteral(n) => match &n.value {
                Number::Int(v) => v.as_i64(),
                _ => None,
            },
            Expr::UnaryOp(u) if u.op == UnaryOp::USub => match &*u.operand {
                Expr::NumberLiteral(n) => match &n.value {
                    Number::Int(v) => v.as_i64().map(|v| -v),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        }
    };
    match op {
        "detach" | "requires_grad_" => shape.cloned(),
        "unsqueeze" => {
            let mut dims = shape?.0.clone();
            let k = int_arg(0)?;
            let pos = if k < 0 { dims.len() as i64 + 1 + k } else { k };
            let pos = usize::try_from(pos).ok().filter(|p| *p <= dims.len())?;
            dims.insert(pos, Dim::Size(SymExpr::Num(1)));
            Some(Shape(dims))
        }
        "transpose" | "swapaxes" | "swapdims" => {
            let mut dims = shape?.0.clone();
            let n = dims.len() as i64;
            let a = int_arg(0)?;
            let b = int_arg(1)?;
            let a = usize::try_from(if a < 0 { a + n } else { a }).ok()?;
            let b = usize::try_from(if b < 0 { b + n } else { b }).ok()?;
            if a >= dims.len() || b >= dims.len() {
                return None;
            }
            dims.swap(a, b);
            Some(Shape(dims))
        }
        "squeeze" => {
            let dims = &shape?.0;
            match args.first() {
                None => Some(Shape(
                    dims.iter().filter(|d| !d.is_one()).cloned().collect(),
                )),
                Some(_) => {
                    let k = int_arg(0)?;
                    let n = dims.len() as i64;
                    let pos = usize::try_from(if k < 0 { k + n } else { k }).ok()?;
                    let mut out = dims.clone();
                    if out.get(pos).is_some_and(Dim::is_one) {
                        out.remove(pos);
                    }
                    Some(Shape(out))
                }
            }
        }
        "T" => Some(Shape(shape?.0.iter().rev().cloned().collect())),
        "mT" | "mH" => {
            let mut dims = shape?.0.clone();
            let n = dims.len();
            if n < 2 {
                return None;
            }
            dims.swap(n - 2, n - 1);
            Some(Shape(dims))
        }
        "permute" => {
            let dims = &shape?.0;
            let order: Vec<&Expr> = match args {
                [Expr::Tuple(t)] => t.elts.iter().collect(),
                [Expr::List(t)] => t.elts.iter().collect(),
                many => many.to_vec(),
            };
            if order.len() != dims.len() {
                return None;
            }
            let mut out = Vec::with_capacity(dims.len());
            for e in order {
                let Expr::NumberLiteral(n) = e else {
                    return None;
                };
                let Number::Int(i) = &n.value else {
                    return None;
                };
                out.push(dims.get(i.as_usize()?)?.clone());
            }
            Some(Shape(out))
        }
        "view" | "reshape" => {
            let elts: Vec<&Expr> = match args {
                [Expr::Tuple(t)] => t.elts.iter().collect(),
                [Expr::List(t)] => t.elts.iter().collect(),
                many => many.to_vec(),
            };
            if elts.is_empty() || elts.iter().any(|e| matches!(e, Expr::Starred(_))) {
                return None;
            }
            // `view(torch.float16)` reinterprets the dtype: shape unknown.
            if elts.len() == 1 && matches!(elts[0], Expr::Attribute(_)) {
                return None;
            }
            Some(Shape(
                elts.iter()
                    .map(|e| {
                        if is_literal_int(e, -1) {
                            Dim::Unknown
                        } else {
                            Dim::Size(sym_expr(e, text))
                        }
                    })
                    .collect(),
            ))
        }
        _ => None,
    }
}

enum Index {
    Full,
    Partial,
    NewAxis,
    Ellipsis,
    Int,
    Other,
}

/// A slice with literal bounds that spans at most one element (`:1`, `2:3`).
fn slice_takes_one(expr: &Expr) -> bool {
    let Expr::Slice(s) = expr else { return false };
    if s.step.is_some() {
        return false;
    }
    let lower = match &s.lower {
        None => Some(0),
        Some(e) => literal_int(e),
    };
    let upper = s.upper.as_deref().and_then(literal_int);
    match (lower, upper) {
        (Some(l), Some(u)) if l >= 0 && u >= 0 => u - l <= 1,
        // `-1:` takes the last element.
        (Some(-1), None) => true,
        _ => false,
    }
}

fn classify_index(expr: &Expr) -> Index {
    match expr {
        Expr::Slice(s) => {
            if s.lower.is_none() && s.upper.is_none() && s.step.is_none() {
                Index::Full
            } else {
                Index::Partial
            }
        }
        Expr::NoneLiteral(_) => Index::NewAxis,
        Expr::EllipsisLiteral(_) => Index::Ellipsis,
        Expr::NumberLiteral(_) => Index::Int,
        Expr::UnaryOp(u) if matches!(&*u.operand, Expr::NumberLiteral(_)) => Index::Int,
        _ => Index::Other,
    }
}

fn index_shape(kinds: &[Index], shape: Option<&Shape>) -> Option<Shape> {
    if kinds.iter().any(|k| matches!(k, Index::Other)) {
        return None;
    }
    let ellipses = kinds
        .iter()
        .filter(|k| matches!(k, Index::Ellipsis))
        .count();
    if ellipses > 1 {
        return None;
    }
    let consumed = kinds
        .iter()
        .filter(|k| matches!(k, Index::Full | Index::Partial | Index::Int))
        .count();
    let src = match shape {
        Some(s) => s.0.clone(),
        // Unknown rank: `x[:, None, None, :]` is taken to name every dim of x (an ellipsis makes
        // the rank unknowable).
        None if ellipses == 0 => vec![Dim::Unknown; consumed],
        None => return None,
    };
    if consumed > src.len() {
        return None;
    }
    let mut out = Vec::new();
    let mut i = 0;
    for k in kinds {
        match k {
            Index::Full => {
                out.push(src[i].clone());
                i += 1;
            }
            Index::Partial => {
                out.push(Dim::Unknown);
                i += 1;
            }
            Index::Int => i += 1,
            Index::NewAxis => out.push(Dim::Size(SymExpr::Num(1))),
            Index::Ellipsis => {
                let skip = src.len() - consumed;
                out.extend(src[i..i + skip].iter().cloned());
                i += skip;
            }
            Index::Other => return None,
        }
    }
    out.extend(src[i..].iter().cloned());
    Some(Shape(out))
}

/// Sizes passed to `torch.ones(b, s)` / `torch.ones((b, s))`.
fn factory_shape(args: &[&Expr], text: &str) -> Option<Shape> {
    let elts: Vec<&Expr> = match args {
        [Expr::Tuple(t)] => t.elts.iter().collect(),
        [Expr::List(t)] => t.elts.iter().collect(),
        many => many.to_vec(),
    };
    if elts.is_empty()
        || elts
            .iter()
            .any(|e| matches!(e, Expr::Starred(_)) || shape_source(e, text).is_some())
    {
        return None;
    }
    Some(Shape(
        elts.iter().map(|e| Dim::Size(sym_expr(e, text))).collect(),
    ))
}

/// `[x] * n`, `[x, x, x]`: the repeated element of a `torch.cat` argument.
fn repeated_list_element<'e>(expr: &'e Expr, text: &str) -> Option<&'e Expr> {
    match expr {
        Expr::BinOp(b) if b.op == Operator::Mult => match (&*b.left, &*b.right) {
            (Expr::List(l), _) | (_, Expr::List(l)) if l.elts.len() == 1 => Some(&l.elts[0]),
            (Expr::Tuple(l), _) | (_, Expr::Tuple(l)) if l.elts.len() == 1 => Some(&l.elts[0]),
            _ => None,
        },
        Expr::List(l) if l.elts.len() >= 2 => {
            let first = text.get(l.elts[0].range().to_std_range())?;
            l.elts[1..]
                .iter()
                .all(|e| text.get(e.range().to_std_range()) == Some(first))
                .then(|| &l.elts[0])
                .filter(|e| matches!(e, Expr::Name(_) | Expr::Attribute(_)))
        }
        _ => None,
    }
}

fn list_repeat_count(expr: &Expr) -> Option<&Expr> {
    match expr {
        Expr::BinOp(b) if b.op == Operator::Mult => match (&*b.left, &*b.right) {
            (Expr::List(_) | Expr::Tuple(_), count) | (count, Expr::List(_) | Expr::Tuple(_)) => {
                Some(count)
            }
            _ => None,
        },
        _ => None,
    }
}

/// A symbolic size from a size argument.
fn sym_expr(expr: &Expr, text: &str) -> SymExpr {
    match expr {
        Expr::NumberLiteral(n) => match &n.value {
            Number::Int(i) => i
                .as_i64()
                .map_or_else(|| SymExpr::Opaque(i.to_string()), SymExpr::Num),
            _ => SymExpr::Opaque(collapse_code(
                text.get(expr.range().to_std_range()).unwrap_or(""),
            )),
        },
        Expr::Name(n) => SymExpr::Var(n.id.to_string()),
        Expr::Attribute(a) if matches!(&*a.value, Expr::Name(_) | Expr::Attribute(_)) => {
            SymExpr::Var(a.attr.id.to_string())
        }
        Expr::UnaryOp(u) if u.op == UnaryOp::USub => match sym_expr(&u.operand, text) {
            SymExpr::Num(v) => SymExpr::Num(-v),
            _ => SymExpr::Opaque(collapse_code(
                text.get(expr.range().to_std_range()).unwrap_or(""),
            )),
        },
        Expr::BinOp(b) => {
            let l = Box::new(sym_expr(&b.left, text));
            let r = Box::new(sym_expr(&b.right, text));
            match b.op {
                Operator::Mult => SymExpr::Mul(l, r),
                Operator::Add => SymExpr::Add(l, r),
                Operator::Sub => SymExpr::Sub(l, r),
                Operator::FloorDiv => SymExpr::FloorDiv(l, r),
                _ => SymExpr::Opaque(collapse_code(
                    text.get(expr.range().to_std_range()).unwrap_or(""),
                )),
            }
        }
        _ => SymExpr::Opaque(collapse_code(
            text.get(expr.range().to_std_range()).unwrap_or(""),
        )),
    }
}

/// Source code as one line: line breaks, indentation and trailing comments of a chain split over
/// several lines are collapsed.
pub fn collapse_code(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    for line in code.split(['\n', '\r']) {
        let line = match line.find('#') {
            Some(pos) if !line[..pos].contains(['\'', '"']) => &line[..pos],
            _ => line,
        };
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if !out.is_empty()
            && !out.ends_with(['(', '[', '{'])
            && !line.starts_with([')', ']', '}', '.', ','])
        {
            out.push(' ');
        }
        out.push_str(line);
    }
    out.trim().to_string()
}
