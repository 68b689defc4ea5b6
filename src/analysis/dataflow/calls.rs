//! Values across calls into this file's code: an enlarged argument of a method of the same class
//! (`self.mix(x, scale=2)`), of an inherited method or `super().m(...)`, of a submodule's
//! `forward` (`self.block = Block(...)` in `__init__`, then `self.block(x)`), or of a
//! module-level function, is followed into the callee: the callee's body is walked with its
//! parameters bound to the call's arguments (keywords and defaults included), so its sinks are
//! sites at the callee's lines with the call in their chain. One walk per callee and pattern of
//! enlarged arguments; later calls reuse what it returned. `map(fn, (a, b))`, a lambda and a
//! generator over a tuple display give their elements one by one (`q, k = map(f, (q, k))`).

mod partial;
mod remote;

use std::rc::Rc;

use crate::source::ast::{self, Expr, Stmt};
use crate::source::{Ranged, TextRange};

use crate::analysis::ElementKey;
use crate::analysis::facts::{EnlargeKind, Fact, Step, StepRole, ValueKind};

use super::FileState;
use super::expr::container_of;
use super::interproc::param_fact;
use super::stmt::{Elements, Walker, dotted_key};

/// The name an element of `map(fn, items)` is bound to while `fn(element)` is evaluated.
const MAP_ITEM: &str = "<map item>";

/// How deep calls are followed (a callee calling another callee).
const MAX_DEPTH: usize = 3;

/// A function of this file a call may lead to.
pub(super) struct Callee<'a> {
    qualname: String,
    name: String,
    def: &'a ast::StmtFunctionDef,
    class: Option<String>,
    /// Called through an object (`self.m(...)`, `self.block(x)`): the first parameter is it.
    bound: bool,
}

impl<'a> FileState<'a> {
    /// Records the functions, classes (with their bases) and `__init__` submodules of the module.
    pub(super) fn record_defs(&mut self, body: &'a [Stmt]) {
        for stmt in body {
            match stmt {
                Stmt::FunctionDef(f) => {
                    let q = format!("{}.{}", self.module.qualname, f.name.id);
                    self.defs.insert(q, f);
                }
                Stmt::ClassDef(c) => {
                    let class = c.name.id.to_string();
                    let bases: Vec<String> = c
                        .bases()
                        .iter()
                        .filter_map(|b| match b {
                            Expr::Name(n) => Some(n.id.to_string()),
                            _ => None,
                        })
                        .collect();
                    self.class_bases.insert(class.clone(), bases);
                    for item in &c.body {
                        let Stmt::FunctionDef(f) = item else { continue };
                        let q = format!("{}.{class}.{}", self.module.qualname, f.name.id);
                        self.defs.insert(q, f);
                        if f.name.id.as_str() == "__init__" {
                            record_submodules(&mut self.submodules, &class, &f.body);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// The method `name` of `class` or of the first of its bases (in this file) that has one.
    fn find_method(&self, class: &str, name: &str, depth: usize) -> Option<(String, String)> {
        let q = format!("{}.{class}.{name}", self.module.qualname);
        if self.defs.contains_key(&q) {
            return Some((q, class.to_string()));
        }
        if depth > 8 {
            return None;
        }
        self.class_bases
            .get(class)?
            .iter()
            .find_map(|base| self.find_method(base, name, depth + 1))
    }
}

/// `self.block = Block(...)` (also inside an `if`) in `__init__`: `Class.block` -> `Block`.
fn record_submodules(
    out: &mut std::collections::HashMap<String, String>,
    class: &str,
    body: &[Stmt],
) {
    for stmt in body {
        match stmt {
            Stmt::Assign(a) => {
                if let ([Expr::Attribute(target)], Expr::Call(call)) =
                    (a.targets.as_slice(), &*a.value)
                    && matches!(&*target.value, Expr::Name(n) if n.id.as_str() == "self")
                    && let Expr::Name(ctor) = &*call.func
                {
                    out.insert(format!("{class}.{}", target.attr.id), ctor.id.to_string());
                }
            }
            Stmt::If(s) => {
                record_submodules(out, class, &s.body);
                for clause in &s.elif_else_clauses {
                    record_submodules(out, class, &clause.body);
                }
            }
            _ => {}
        }
    }
}

impl<'s, 'a> Walker<'s, 'a> {
    /// The function of this file that a call's callee expression names, when one is known.
    fn resolve_callee(&self, func: &Expr) -> Option<Callee<'a>> {
        let (qualname, class, bound, name) = match func {
            Expr::Attribute(a) => {
                let class = self.class_name.as_deref()?;
                let attr = a.attr.id.as_str();
                match &*a.value {
                    Expr::Name(recv) if matches!(recv.id.as_str(), "self" | "cls") => {
                        let key = format!("{class}.{attr}");
                        if let Some(sub) = self.fs.submodules.get(&key)
                            && !self.env.contains_key(&format!("self.{attr}"))
                        {
                            // `self.block(x)` calls the submodule's `forward`.
                            let (q, owner) = self.fs.find_method(sub, "forward", 0)?;
                            (q, Some(owner), true, format!("self.{attr}"))
                        } else {
                            let (q, owner) = self.fs.find_method(class, attr, 0)?;
                            (q, Some(owner), true, format!("self.{attr}"))
                        }
                    }
                    // `super().m(...)`: the first base (in this file) that has `m`.
                    Expr::Call(c) if matches!(&*c.func, Expr::Name(n) if n.id.as_str() == "super") =>
                    {
                        let (q, owner) = self
                            .fs
                            .class_bases
                            .get(class)?
                            .iter()
                            .find_map(|base| self.fs.find_method(base, attr, 0))?;
                        (q, Some(owner), true, format!("super().{attr}"))
                    }
                    _ => return None,
                }
            }
            Expr::Name(n) => {
                let id = n.id.as_str();
                if self.env.contains_key(id) || !self.fs.module_functions.contains(id) {
                    return None;
                }
                let q = format!("{}.{id}", self.fs.module.qualname);
                // What a summary says of an enlarged result wins (it counts callers' reads).
                if self
                    .fs
                    .summaries
                    .get(&q)
                    .is_some_and(|s| s.enlarged.is_some())
                {
                    return None;
                }
                (q, None, false, id.to_string())
            }
            _ => return None,
        };
        let def = *self.fs.defs.get(&qualname)?;
        Some(Callee {
            qualname,
            name,
            def,
            class,
            bound,
        })
    }

    /// Does an argument of the call hold an enlarged value by a name, or name an enlarger (cheap:
    /// nothing is evaluated)?
    pub(super) fn passes_enlarged(&self, call: &ast::ExprCall) -> bool {
        let args = call.arguments.args.iter();
        let keywords = call.arguments.keywords.iter().map(|k| &k.value);
        args.chain(keywords).any(|arg| match dotted_key(arg) {
            Some(key) => self.env.get(&key).is_some_and(|f| f.enlarged.is_some()),
            // `helper(m.expand(n, 4))`: may be enlarged.
            None => self.fs.mentions_enlarger_in(arg.range()),
        })
    }

    /// A call of a function of this file that is passed an enlarged value: the callee walked
    /// with its parameters bound (its sinks become sites), and what it returns. None when the
    /// call leads nowhere known or passes nothing enlarged (nothing is evaluated then); a call
    /// into another file of the project is recorded for that file (see `remote`).
    pub(super) fn pass_into_call(&mut self, call: &ast::ExprCall) -> Option<Fact> {
        if self.fs.pass_stack.len() >= MAX_DEPTH {
            return None;
        }
        // The callee first (hash lookups), then the arguments' text.
        let Some(callee) = self.resolve_callee(&call.func) else {
            self.record_remote_pass(call);
            return None;
        };
        if !self.passes_enlarged(call) {
            return None;
        }
        if self.fs.pass_stack.contains(&callee.qualname) {
            return None;
        }
        if let Expr::Attribute(a) = &*call.func
            && matches!(&*a.value, Expr::Call(_))
        {
            self.eval(&a.value);
        }
        let broadcast = self
            .fs
            .summaries
            .get(&callee.qualname)
            .map(|s| (s.params.clone(), s.broadcast_params.clone()))
            .unwrap_or_default();
        let (positional, keyword_facts) = self.eval_args_for(call, &broadcast.0, &broadcast.1);
        let positional: Vec<Option<Fact>> = positional.into_iter().map(Some).collect();
        let keywords: Vec<(String, Fact)> = call
            .arguments
            .keywords
            .iter()
            .zip(keyword_facts)
            .filter_map(|(k, f)| Some((k.arg.as_ref()?.id.to_string(), f)))
            .collect();
        let starred = call
            .arguments
            .args
            .iter()
            .position(|a| matches!(a, Expr::Starred(_)));
        let stmt = self.stmt_range;
        let passed = |name: &str, at: Option<usize>, fact: Fact| {
            let range = arg_range(call, at, name).unwrap_or(call.range());
            passed_step(fact, name, &callee.name, range, stmt, None)
        };
        let bindings = bind_params(
            callee.def,
            callee.bound,
            &positional,
            &keywords,
            starred,
            &passed,
        );
        let key = (callee.qualname.clone(), pattern(&bindings));
        if let Some(result) = self.fs.passed.get(&key) {
            return Some(result.clone());
        }
        let class_shapes = if callee.class.is_some() && callee.class == self.class_name {
            self.fs.class_shapes.clone()
        } else {
            Default::default()
        };
        let outermost = self.fs.outer_call.is_none();
        if outermost {
            self.fs.outer_call = Some(call.range());
        }
        let result = walk_callee(self.fs, &callee, bindings, class_shapes);
        if outermost {
            self.fs.outer_call = None;
        }
        let result = returned_through(result, call.range(), self.fs.code(call.range()), stmt);
        self.fs.passed.insert(key, result.clone());
        Some(result)
    }
}

/// One parameter of a callee and what a call gives it.
pub(super) struct Binding<'a> {
    name: String,
    arg: Option<Fact>,
    default: Option<&'a Expr>,
}

/// Binds a callee's parameters to a call's arguments: positional ones up to a `*args`
/// (`starred`), keywords by name, the rest to their defaults. `passed` adds to an enlarged
/// argument the step that passes it (given the parameter, and the position it was passed at).
pub(super) fn bind_params<'a>(
    def: &'a ast::StmtFunctionDef,
    bound: bool,
    positional: &[Option<Fact>],
    keywords: &[(String, Fact)],
    starred: Option<usize>,
    passed: &dyn Fn(&str, Option<usize>, Fact) -> Fact,
) -> Vec<Binding<'a>> {
    let skip = usize::from(bound && !is_static(def));
    let params = &def.parameters;
    let n_positional = params.posonlyargs.len() + params.args.len();
    let mut out = Vec::new();
    for (i, p) in params.iter_non_variadic_params().enumerate().skip(skip) {
        let name = p.parameter.name.id.to_string();
        let at = i - skip;
        let by_position = (i < n_positional && starred.is_none_or(|s| at < s))
            .then(|| positional.get(at).cloned().flatten())
            .flatten()
            .map(|f| (Some(at), f));
        let by_keyword = || {
            keywords
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, f)| (None, f.clone()))
        };
        let arg = by_position.or_else(by_keyword).map(|(at, fact)| {
            if fact.enlarged.is_some() {
                passed(&name, at, fact)
            } else {
                fact
            }
        });
        out.push(Binding {
            name,
            arg,
            default: p.default.as_deref(),
        });
    }
    out
}

/// Which parameters are bound to enlarged values, and how (the memo key of a callee's walk).
fn pattern(bindings: &[Binding<'_>]) -> String {
    bindings
        .iter()
        .map(|b| match b.arg.as_ref().and_then(|f| f.enlarged.as_ref()) {
            Some(e) if e.kind == EnlargeKind::Copy => 'c',
            Some(_) => 'v',
            None => '-',
        })
        .collect()
}

fn is_static(def: &ast::StmtFunctionDef) -> bool {
    def.decorator_list
        .iter()
        .any(|d| matches!(&d.expression, Expr::Name(n) if n.id.as_str() == "staticmethod"))
}

/// Walks a callee with its parameters bound: its sinks become sites of this file; returns the
/// join of what it returns.
fn walk_callee<'a>(
    fs: &mut FileState<'a>,
    callee: &Callee<'a>,
    bindings: Vec<Binding<'a>>,
    class_shapes: std::collections::HashMap<String, Fact>,
) -> Fact {
    let def = callee.def;
    let params = &def.parameters;
    fs.pass_stack.push(callee.qualname.clone());
    let mut walker = Walker::new(fs, callee.class.clone(), true, def.range);
    for (attr, fact) in class_shapes {
        walker.env.insert(format!("self.{attr}"), fact);
    }
    if callee.bound
        && !is_static(def)
        && let Some(receiver) = params.iter_non_variadic_params().next()
    {
        walker.env.insert(
            receiver.parameter.name.id.to_string(),
            Fact::of_kind(ValueKind::NotTensor),
        );
    }
    for param in [&params.vararg, &params.kwarg].into_iter().flatten() {
        walker.env.insert(
            param.name.id.to_string(),
            Fact::of_kind(ValueKind::NotTensor),
        );
    }
    for Binding { name, arg, default } in bindings {
        let fact = match (arg, default) {
            (Some(fact), _) => fact,
            (None, Some(default)) => walker.eval(default),
            (None, None) => params
                .iter_non_variadic_params()
                .find(|p| p.parameter.name.id.as_str() == name)
                .map_or_else(Fact::unknown, |p| param_fact(&p.parameter)),
        };
        walker.env.insert(name, fact);
    }
    walker.run_body(&def.body);
    let mut returns = walker.returns.take().unwrap_or_default();
    if !walker.dead {
        returns.push(Fact::of_kind(ValueKind::NotTensor));
    }
    drop(walker);
    fs.pass_stack.pop();
    returns
        .into_iter()
        .reduce(|a, b| a.join(&b))
        .unwrap_or_default()
}

/// `fact` passed as parameter `param` of `callee` at `range` (in `file`, when another file's).
pub(super) fn passed_step(
    mut fact: Fact,
    param: &str,
    callee: &str,
    range: TextRange,
    stmt: TextRange,
    file: Option<std::sync::Arc<str>>,
) -> Fact {
    if let Some(e) = &fact.enlarged {
        let mut e = (**e).clone();
        e.steps.push(Step {
            role: StepRole::Argument,
            file,
            range,
            code: format!("passed as `{param}` to `{callee}`"),
            receiver: None,
            stmt,
        });
        fact.enlarged = Some(Rc::new(e));
        fact.sink_results.clear();
    }
    fact
}

impl Walker<'_, '_> {
    /// `map(fn, (a, b))`, `(f(t) for t in (a, b))`, `[f(t) for t in (a, b)]`: each element, as
    /// `fn` (a lambda, a function, a method) or the element expression gives it. None for any
    /// other value.
    pub(super) fn mapped_elements(&mut self, value: &Expr) -> Option<(Fact, Elements)> {
        let facts = match value {
            Expr::Call(call) => self.map_call(call)?,
            Expr::Generator(g) => self.over_display(&g.generators, &g.elt)?,
            Expr::ListComp(g) => self.over_display(&g.generators, &g.elt)?,
            _ => return None,
        };
        // An element enlarged inside `fn` is returned by it, for every element alike (a fix
        // there would convert them all).
        let facts = self.separate_copies(facts);
        let facts: Vec<Fact> = if facts.iter().any(|f| f.enlarged.is_some()) {
            let code = self.fs.code(value.range());
            facts
                .into_iter()
                .map(|f| returned_through(f, value.range(), code.clone(), self.stmt_range))
                .collect()
        } else {
            facts
        };
        let elements: Elements = facts
            .iter()
            .enumerate()
            .map(|(i, f)| (ElementKey::Index(i as u32), f.clone()))
            .collect();
        Some((container_of(&facts), elements))
    }

    /// One `repeat` written once makes a separate copy for each element: each gets its own
    /// count of readers (reading `q` is not reading `k`'s copy).
    fn separate_copies(&mut self, mut facts: Vec<Fact>) -> Vec<Fact> {
        let mut seen = Vec::new();
        for fact in &mut facts {
            let Some(e) = &fact.enlarged else { continue };
            let Some(id) = e.copy_origin else { continue };
            if !seen.contains(&id) {
                seen.push(id);
                continue;
            }
            let fresh = self.fs.copy_uses.len() as u32;
            self.fs.copy_uses.push(Vec::new());
            let mut e = (**e).clone();
            e.copy_origin = Some(fresh);
            fact.enlarged = Some(Rc::new(e));
        }
        facts
    }

    fn map_call(&mut self, call: &ast::ExprCall) -> Option<Vec<Fact>> {
        let is_map = matches!(&*call.func, Expr::Name(n) if n.id.as_str() == "map")
            && !self.env.contains_key("map");
        let ([func, items], []) = (&*call.arguments.args, &*call.arguments.keywords) else {
            return None;
        };
        let items = display_items(items)?;
        if !is_map {
            return None;
        }
        let mut facts = Vec::with_capacity(items.len());
        match func {
            Expr::Lambda(l) => {
                let params = l.parameters.as_deref()?;
                let [param] = params.args.as_slice() else {
                    return None;
                };
                if !params.posonlyargs.is_empty() || !params.kwonlyargs.is_empty() {
                    return None;
                }
                let name = param.parameter.name.id.to_string();
                for item in items {
                    let fact = self.eval(item);
                    let fact = self.passed_as(fact, item, &name, "the lambda");
                    facts.push(self.with_bound(&name, fact, |w| w.eval(&l.body)));
                }
            }
            _ => {
                // `map(F.normalize, (q, k))` is `F.normalize(q)`, then `F.normalize(k)`.
                let callee = self.fs.code(func.range());
                for item in items {
                    let fact = self.eval(item);
                    let fact = self.passed_as(fact, item, "an element", &callee);
                    let item = Expr::Name(ast::ExprName {
                        node_index: Default::default(),
                        range: item.range(),
                        id: ast::name::Name::new(MAP_ITEM),
                        ctx: ast::ExprContext::Load,
                    });
                    let one = ast::ExprCall {
                        node_index: Default::default(),
                        range_start: call.start(),
                        func: Box::new(func.clone()),
                        arguments: ast::Arguments {
                            range: TextRange::new(func.end(), call.end()),
                            node_index: Default::default(),
                            args: Box::new([item]),
                            keywords: Default::default(),
                        },
                    };
                    let one = Expr::Call(one);
                    facts.push(self.with_bound(MAP_ITEM, fact, |w| w.eval(&one)));
                }
            }
        }
        Some(facts)
    }

    fn over_display(&mut self, generators: &[ast::Comprehension], elt: &Expr) -> Option<Vec<Fact>> {
        let [generator] = generators else {
            return None;
        };
        let Expr::Name(target) = &generator.target else {
            return None;
        };
        if !generator.ifs.is_empty() || generator.is_async {
            return None;
        }
        let items = display_items(&generator.iter)?;
        let name = target.id.to_string();
        let mut facts = Vec::with_capacity(items.len());
        for item in items {
            let fact = self.eval(item);
            let fact = self.passed_as(fact, item, &name, "the generator");
            facts.push(self.with_bound(&name, fact, |w| w.eval(elt)));
        }
        Some(facts)
    }

    /// Runs `f` with `name` bound to `fact`, then restores what `name` was.
    fn with_bound(&mut self, name: &str, fact: Fact, f: impl FnOnce(&mut Self) -> Fact) -> Fact {
        let saved = self.env.insert(name.to_string(), fact);
        let out = f(self);
        match saved {
            Some(old) => self.env.restore(name, old),
            None => {
                self.env.remove(name);
            }
        }
        out
    }

    /// An element handed to `to` one by one: its chain says so (and a fix never edits across).
    fn passed_as(&self, mut fact: Fact, item: &Expr, name: &str, to: &str) -> Fact {
        if let Some(e) = &fact.enlarged {
            let mut e = (**e).clone();
            let name = if name == "an element" {
                name.to_string()
            } else {
                format!("`{name}`")
            };
            e.steps.push(Step {
                role: StepRole::Argument,
                file: None,
                range: item.range(),
                code: format!("passed as {name} to `{}`", to),
                receiver: None,
                stmt: self.stmt_range,
            });
            fact.enlarged = Some(Rc::new(e));
        }
        fact
    }
}

/// The elements of a tuple or list display without starred items.
fn display_items(expr: &Expr) -> Option<&[Expr]> {
    let elts = match expr {
        Expr::Tuple(t) => &t.elts,
        Expr::List(l) => &l.elts,
        _ => return None,
    };
    (!elts.iter().any(|e| matches!(e, Expr::Starred(_)))).then_some(elts.as_slice())
}

/// Where the call passes the `at`-th positional argument, or the keyword `name`.
fn arg_range(call: &ast::ExprCall, at: Option<usize>, name: &str) -> Option<TextRange> {
    at.and_then(|at| call.arguments.args.get(at))
        .map(Ranged::range)
        .or_else(|| {
            call.arguments
                .keywords
                .iter()
                .find(|k| k.arg.as_ref().is_some_and(|a| a.id.as_str() == name))
                .map(Ranged::range)
        })
}

/// The callee's result as the caller sees it: an enlarged value it returns continues its chain
/// through this call.
fn returned_through(mut fact: Fact, range: TextRange, code: String, stmt: TextRange) -> Fact {
    if let Some(e) = &fact.enlarged {
        let mut e = (**e).clone();
        e.steps.push(Step {
            role: StepRole::Call,
            file: None,
            range,
            code,
            receiver: None,
            stmt,
        });
        fact.enlarged = Some(Rc::new(e));
    }
    fact
}
