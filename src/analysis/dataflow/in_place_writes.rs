//! Which parameters and `self` attributes each function of the file writes in place, read from
//! its text in order (see [`crate::analysis::in_place`]): a subscript store or augmented store
//! (`x[i] = v`, `x[..., j] += v`, `x += v`), an in-place tensor method (`x.index_copy_(...)`), an
//! `out=x` keyword, or `x` passed on to another function of the project. A name bound to a view
//! of a parameter (`v = x.view(-1)`, `for t in (x, y)`) writes it too; once a parameter is
//! rebound to anything else (`x = x.clone()`), later writes are not the caller's tensor.

use std::collections::HashMap;

use crate::analysis::facts::Fact;
use crate::analysis::in_place::{Forward, InPlaceWrites, Slot, WriterCall, Writers};
use crate::analysis::torch_api::{VIEW_METHODS, is_in_place_method, is_non_tensor_module};
use crate::source::ast::visitor::{self, Visitor};
use crate::source::ast::{self, Expr, Stmt};

use super::FileState;
use super::stmt::{Walker, dotted_key};

/// `reshape` and `flatten` may copy, so a write through them may not reach the receiver.
const MAY_COPY: &[&str] = &["reshape", "flatten", "reshape_as"];

/// A method whose result shares its receiver's memory whatever its strides.
fn shares_memory(method: &str) -> bool {
    method == "diagonal" || (VIEW_METHODS.contains(&method) && !MAY_COPY.contains(&method))
}

/// A call's arguments by where they go: positional ones up to a `*args`, then keywords.
fn arg_slots(call: &ast::ExprCall) -> impl Iterator<Item = (Slot, &Expr)> {
    let args = &call.arguments.args;
    let starred = args.iter().position(|a| matches!(a, Expr::Starred(_)));
    let positional = args
        .iter()
        .take(starred.unwrap_or(usize::MAX))
        .enumerate()
        .map(|(i, a)| (Slot::Position(i as u32), a));
    let keywords = call
        .arguments
        .keywords
        .iter()
        .filter_map(|k| Some((Slot::Keyword(k.arg.as_ref()?.id.to_string()), &k.value)));
    positional.chain(keywords)
}

impl FileState<'_> {
    /// The in-place writes of every function and method of the module's top level that writes
    /// or passes on something it is given.
    pub(super) fn in_place_writes(&self, body: &[Stmt]) -> Vec<InPlaceWrites> {
        let mut out = Vec::new();
        for stmt in body {
            match stmt {
                Stmt::FunctionDef(f) => out.extend(self.function_writes(f, None)),
                Stmt::ClassDef(c) => {
                    for item in &c.body {
                        if let Stmt::FunctionDef(f) = item {
                            out.extend(self.function_writes(f, Some(c.name.id.as_str())));
                        }
                    }
                }
                _ => {}
            }
        }
        out
    }

    fn function_writes(
        &self,
        def: &ast::StmtFunctionDef,
        class: Option<&str>,
    ) -> Option<InPlaceWrites> {
        let is_static = def.decorator_list.iter().any(|d| {
            matches!(&d.expression, Expr::Name(n) if matches!(n.id.as_str(), "staticmethod" | "classmethod"))
        });
        let is_method = class.is_some() && !is_static;
        let params: Vec<String> = def
            .parameters
            .iter_non_variadic_params()
            .map(|p| p.parameter.name.id.to_string())
            .collect();
        let receiver = if is_method {
            params.first().cloned()
        } else {
            None
        };
        let mut scan = Scan {
            fs: self,
            class,
            receiver: receiver.as_deref(),
            aliases: params
                .iter()
                .skip(usize::from(is_method))
                .map(|p| (p.clone(), vec![p.clone()]))
                .collect(),
            written: Vec::new(),
            passes: Vec::new(),
        };
        scan.body(&def.body);
        let (written, passes) = (scan.written, scan.passes);
        if written.is_empty() && passes.is_empty() {
            return None;
        }
        let qualname = match class {
            Some(c) => format!("{}.{c}.{}", self.module.qualname, def.name.id),
            None => format!("{}.{}", self.module.qualname, def.name.id),
        };
        Some(InPlaceWrites {
            qualname,
            is_method,
            params,
            written,
            passes,
        })
    }
}

/// One function's body, read in order.
struct Scan<'f, 'a> {
    fs: &'f FileState<'a>,
    class: Option<&'f str>,
    /// The method's receiver (`self`): `self.<attr>` is a root of its own.
    receiver: Option<&'f str>,
    /// Local name -> the parameters (or `self.<attr>`) whose memory it holds.
    aliases: HashMap<String, Vec<String>>,
    written: Vec<String>,
    passes: Vec<Forward>,
}

impl Scan<'_, '_> {
    fn body(&mut self, body: &[Stmt]) {
        for stmt in body {
            self.stmt(stmt);
        }
    }

    fn stmt(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Assign(a) => {
                self.exprs([&*a.value]);
                for target in &a.targets {
                    self.store(target, Some(&a.value));
                }
            }
            Stmt::AnnAssign(a) => {
                if let Some(value) = &a.value {
                    self.exprs([&**value]);
                }
                self.store(&a.target, a.value.as_deref());
            }
            Stmt::AugAssign(a) => {
                self.exprs([&*a.value]);
                // `x += v`, `x[i] += v`, `self.x += v` write x in place (a tensor's `+=`).
                let target = match &*a.target {
                    Expr::Subscript(s) => &*s.value,
                    other => other,
                };
                self.write(target);
            }
            Stmt::Expr(e) => self.exprs([&*e.value]),
            Stmt::Return(r) => self.exprs(r.value.as_deref()),
            Stmt::If(s) => {
                self.exprs([&*s.test]);
                self.body(&s.body);
                for clause in &s.elif_else_clauses {
                    self.exprs(clause.test.as_ref());
                    self.body(&clause.body);
                }
            }
            Stmt::For(s) => {
                self.exprs([&*s.iter]);
                let held: Vec<String> = match &*s.iter {
                    Expr::Tuple(t) => t.elts.iter().flat_map(|e| self.roots(e)).collect(),
                    Expr::List(l) => l.elts.iter().flat_map(|e| self.roots(e)).collect(),
                    _ => Vec::new(),
                };
                self.rebind(&s.target, held);
                self.body(&s.body);
                self.body(&s.orelse);
            }
            Stmt::While(s) => {
                self.exprs([&*s.test]);
                self.body(&s.body);
                self.body(&s.orelse);
            }
            Stmt::With(w) => {
                for item in &w.items {
                    self.exprs([&item.context_expr]);
                    if let Some(var) = &item.optional_vars {
                        self.rebind(var, Vec::new());
                    }
                }
                self.body(&w.body);
            }
            Stmt::Try(t) => {
                self.body(&t.body);
                for handler in &t.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = handler;
                    self.body(&h.body);
                }
                self.body(&t.orelse);
                self.body(&t.finalbody);
            }
            // A nested function or class is its own scope.
            _ => {}
        }
    }

    /// A store to `target` of `value`: a subscript store writes its base in place; a name is
    /// rebound to what `value` holds.
    fn store(&mut self, target: &Expr, value: Option<&Expr>) {
        match target {
            Expr::Subscript(s) => self.write(&s.value),
            Expr::Name(_) => {
                let held = value.map(|v| self.roots(v)).unwrap_or_default();
                self.rebind(target, held);
            }
            Expr::Tuple(t) => {
                for elt in &t.elts {
                    self.store(elt, None);
                }
            }
            Expr::List(l) => {
                for elt in &l.elts {
                    self.store(elt, None);
                }
            }
            Expr::Starred(s) => self.store(&s.value, None),
            _ => {}
        }
    }

    fn rebind(&mut self, target: &Expr, held: Vec<String>) {
        match target {
            Expr::Name(n) if held.is_empty() => {
                self.aliases.remove(n.id.as_str());
            }
            Expr::Name(n) => {
                self.aliases.insert(n.id.to_string(), held);
            }
            other => self.store(other, None),
        }
    }

    fn write(&mut self, expr: &Expr) {
        for root in self.roots(expr) {
            if !self.written.contains(&root) {
                self.written.push(root);
            }
        }
    }

    /// The parameters (or `self.<attr>`) whose memory `expr` is: a name bound to one, a view
    /// of one, a basic slice of one.
    fn roots(&self, expr: &Expr) -> Vec<String> {
        match expr {
            Expr::Name(n) => self.aliases.get(n.id.as_str()).cloned().unwrap_or_default(),
            Expr::Attribute(a) => match &*a.value {
                Expr::Name(n) if Some(n.id.as_str()) == self.receiver => {
                    vec![format!("self.{}", a.attr.id)]
                }
                // `.data` shares the tensor's memory.
                value if a.attr.id.as_str() == "data" => self.roots(value),
                _ => Vec::new(),
            },
            Expr::Subscript(s) if basic_index(&s.slice) => self.roots(&s.value),
            Expr::Call(c) => match &*c.func {
                Expr::Attribute(a) if shares_memory(a.attr.id.as_str()) => self.roots(&a.value),
                _ => Vec::new(),
            },
            Expr::Starred(s) => self.roots(&s.value),
            _ => Vec::new(),
        }
    }

    /// Every call in the expressions: in-place methods, `out=` keywords, roots passed on.
    fn exprs<'e>(&mut self, exprs: impl IntoIterator<Item = &'e Expr>) {
        let mut calls = Calls(Vec::new());
        for expr in exprs {
            calls.visit_expr(expr);
        }
        for call in calls.0 {
            self.call(call);
        }
    }

    fn call(&mut self, call: &ast::ExprCall) {
        if let Expr::Attribute(a) = &*call.func
            && is_in_place_method(a.attr.id.as_str())
        {
            self.write(&a.value);
        }
        for kw in &call.arguments.keywords {
            if kw.arg.as_ref().is_some_and(|a| a.id.as_str() == "out") {
                self.write(&kw.value);
            }
        }
        let Some((callee, bound)) = self.callee(&call.func) else {
            return;
        };
        let mut found = Vec::new();
        for (slot, arg) in arg_slots(call) {
            for root in self.roots(arg) {
                found.push(Forward {
                    root,
                    call: WriterCall {
                        callee: callee.clone(),
                        bound,
                        slot: slot.clone(),
                    },
                });
            }
        }
        for f in found {
            if !self.passes.contains(&f) {
                self.passes.push(f);
            }
        }
    }

    /// The function of the project a call names, and whether it is called through an object:
    /// a module function of this file, an imported name, `module.f`, or `self.m`.
    fn callee(&self, func: &Expr) -> Option<(String, bool)> {
        match func {
            Expr::Name(n) => {
                let id = n.id.as_str();
                if self.aliases.contains_key(id) {
                    return None;
                }
                let q = self.fs.imports.get(id).cloned().or_else(|| {
                    self.fs
                        .module_functions
                        .contains(id)
                        .then(|| format!("{}.{id}", self.fs.module.qualname))
                })?;
                (!library(&q)).then_some((q, false))
            }
            Expr::Attribute(a) => match &*a.value {
                Expr::Name(n) if Some(n.id.as_str()) == self.receiver => {
                    let class = self.class?;
                    let q = format!("{}.{class}.{}", self.fs.module.qualname, a.attr.id);
                    // A method of the class (not a submodule held in an attribute).
                    self.fs.defs.contains_key(&q).then_some((q, true))
                }
                Expr::Name(n) => {
                    let module = self.fs.imports.get(n.id.as_str())?;
                    (!library(module)).then(|| (format!("{module}.{}", a.attr.id), false))
                }
                _ => None,
            },
            _ => None,
        }
    }
}

/// A dotted path into torch or a library that holds no tensors: never a function of the project.
fn library(path: &str) -> bool {
    let root = path.split('.').next().unwrap_or(path);
    root == "torch" || root == "einops" || is_non_tensor_module(root)
}

/// An index that selects a view (slices, integers, `None`, `...`): not a gather, which copies.
fn basic_index(slice: &Expr) -> bool {
    match slice {
        Expr::Slice(_) | Expr::NumberLiteral(_) | Expr::NoneLiteral(_) => true,
        Expr::EllipsisLiteral(_) => true,
        Expr::UnaryOp(u) => matches!(&*u.operand, Expr::NumberLiteral(_)),
        Expr::Tuple(t) => t.elts.iter().all(basic_index),
        _ => false,
    }
}

/// Every call in an expression, outermost first.
struct Calls<'e>(Vec<&'e ast::ExprCall>);

impl<'e> Visitor<'e> for Calls<'e> {
    fn visit_expr(&mut self, expr: &'e Expr) {
        if let Expr::Call(c) = expr {
            self.0.push(c);
        }
        visitor::walk_expr(self, expr);
    }
}

impl Walker<'_, '_> {
    /// The summaries a lookup of in-place writes consults.
    fn writers(&self) -> Writers<'_> {
        Writers {
            local: &self.fs.in_place,
            table: self.fs.summaries,
        }
    }

    /// A call of a function of the project that writes one of its arguments in place: what that
    /// argument holds is written (a copy made for it is needed). Nothing is evaluated here.
    pub(super) fn note_in_place_call(&mut self, call: &ast::ExprCall) {
        if self.fs.in_place.is_empty() && !self.fs.summaries.has_in_place() {
            return;
        }
        let Some(callee) = self.callee_qualname(&call.func) else {
            return;
        };
        let bound = matches!(&*call.func, Expr::Attribute(a)
            if matches!(&*a.value, Expr::Name(n) if matches!(n.id.as_str(), "self" | "cls")));
        let mut written = Vec::new();
        for (slot, arg) in arg_slots(call) {
            let call = WriterCall {
                callee: callee.clone(),
                bound,
                slot,
            };
            if let Some(fact) = dotted_key(memory_of(arg)).and_then(|k| self.env.get(&k))
                && self.writers().writes(&call)
            {
                written.push(fact.clone());
            }
        }
        for fact in &written {
            self.mark_in_place(fact);
        }
    }

    /// `self.<attr> = value` in a class one of whose methods writes `self.<attr>` in place (itself
    /// or through a call): the value stored there is written.
    pub(super) fn note_attr_store(&mut self, target: &Expr, fact: &Fact) {
        let (Expr::Attribute(a), Some(class)) = (target, &self.class_name) else {
            return;
        };
        if !matches!(&*a.value, Expr::Name(n) if n.id.as_str() == "self")
            || fact.sink_results.is_empty() && fact.repeat_candidate.is_none()
        {
            return;
        }
        let prefix = format!("{}.{class}.", self.fs.module.qualname);
        let root = format!("self.{}", a.attr.id);
        let writers = self.writers();
        let written = self.fs.in_place.values().any(|w| {
            w.is_method
                && w.qualname
                    .strip_prefix(&prefix)
                    .is_some_and(|m| !m.contains('.'))
                && writers.root_written(w, &root, 0)
        });
        if written {
            self.mark_in_place(fact);
        }
    }
}

/// The expression whose memory `expr` is: through views and basic slices (`x.view(-1)[0]` is x).
fn memory_of(expr: &Expr) -> &Expr {
    match expr {
        Expr::Subscript(s) if basic_index(&s.slice) => memory_of(&s.value),
        Expr::Call(c) => match &*c.func {
            Expr::Attribute(a) if shares_memory(a.attr.id.as_str()) => memory_of(&a.value),
            _ => expr,
        },
        Expr::Attribute(a) if a.attr.id.as_str() == "data" => memory_of(&a.value),
        _ => expr,
    }
}
