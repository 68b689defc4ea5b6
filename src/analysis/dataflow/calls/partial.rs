//! `functools.partial`: a name (or `self.attr`) bound once to `partial(f, a, k=v)` and called
//! as `g(x, j=w)` is the call `f(a, x, k=v, j=w)`, which then goes where a call of `f` goes (a
//! function or method of this file, another file's through the imports, torch's own).

use std::collections::HashMap;

use crate::source::ast::{self, Expr, Stmt};

use super::super::FileState;
use super::super::stmt::Walker;

/// The key of a name bound at module level (a function's names are keyed by its start).
const MODULE: &str = "m";

impl<'a> FileState<'a> {
    /// Records the names and `self` attributes bound exactly once, to a `partial(...)` call.
    pub(in crate::analysis::dataflow) fn record_partials(&mut self, body: &'a [Stmt]) {
        if !self.text.contains("partial(") {
            return;
        }
        let mut found = Partials::default();
        found.scan(body, MODULE.to_string(), None, self);
        self.partials = found
            .calls
            .into_iter()
            .filter(|(key, _)| found.bound.get(key) == Some(&1))
            .collect();
    }
}

#[derive(Default)]
struct Partials<'a> {
    /// How often each key is bound.
    bound: HashMap<String, usize>,
    calls: HashMap<String, &'a ast::ExprCall>,
}

impl<'a> Partials<'a> {
    fn scan(&mut self, body: &'a [Stmt], scope: String, class: Option<&str>, fs: &FileState<'a>) {
        for stmt in body {
            match stmt {
                Stmt::Assign(a) => {
                    for target in &a.targets {
                        self.bind(target, &scope, class);
                    }
                    if let ([target], Expr::Call(call)) = (a.targets.as_slice(), &*a.value)
                        && is_partial(&call.func, fs)
                        && let Some(key) = key_of(target, &scope, class)
                    {
                        self.calls.insert(key, call);
                    }
                }
                Stmt::AnnAssign(a) => self.bind(&a.target, &scope, class),
                Stmt::AugAssign(a) => self.bind(&a.target, &scope, class),
                Stmt::For(f) => {
                    self.bind(&f.target, &scope, class);
                    self.scan(&f.body, scope.clone(), class, fs);
                    self.scan(&f.orelse, scope.clone(), class, fs);
                }
                Stmt::While(w) => {
                    self.scan(&w.body, scope.clone(), class, fs);
                    self.scan(&w.orelse, scope.clone(), class, fs);
                }
                Stmt::If(s) => {
                    self.scan(&s.body, scope.clone(), class, fs);
                    for clause in &s.elif_else_clauses {
                        self.scan(&clause.body, scope.clone(), class, fs);
                    }
                }
                Stmt::With(w) => self.scan(&w.body, scope.clone(), class, fs),
                Stmt::Try(t) => {
                    self.scan(&t.body, scope.clone(), class, fs);
                    for handler in &t.handlers {
                        let ast::ExceptHandler::ExceptHandler(h) = handler;
                        self.scan(&h.body, scope.clone(), class, fs);
                    }
                    self.scan(&t.orelse, scope.clone(), class, fs);
                    self.scan(&t.finalbody, scope.clone(), class, fs);
                }
                Stmt::FunctionDef(f) => {
                    let inner = f.range.start().to_u32().to_string();
                    self.scan(&f.body, inner, class, fs);
                }
                Stmt::ClassDef(c) => {
                    // The class body's own names are not what its methods read by name.
                    let inner = format!("class {}", c.range.start().to_u32());
                    self.scan(&c.body, inner, Some(c.name.id.as_str()), fs);
                }
                _ => {}
            }
        }
    }

    /// Counts a binding of every name (and `self` attribute) in `target`.
    fn bind(&mut self, target: &Expr, scope: &str, class: Option<&str>) {
        match target {
            Expr::Tuple(t) => t.elts.iter().for_each(|e| self.bind(e, scope, class)),
            Expr::List(l) => l.elts.iter().for_each(|e| self.bind(e, scope, class)),
            Expr::Starred(s) => self.bind(&s.value, scope, class),
            _ => {
                if let Some(key) = key_of(target, scope, class) {
                    *self.bound.entry(key).or_default() += 1;
                }
            }
        }
    }
}

/// `name` in `scope`, or `self.attr` of `class`.
fn key_of(target: &Expr, scope: &str, class: Option<&str>) -> Option<String> {
    match target {
        Expr::Name(n) => Some(format!("{scope}:{}", n.id)),
        Expr::Attribute(a) if matches!(&*a.value, Expr::Name(n) if n.id.as_str() == "self") => {
            Some(format!("{}.self.{}", class?, a.attr.id))
        }
        _ => None,
    }
}

/// `partial` imported from `functools`, or `functools.partial`.
fn is_partial(func: &Expr, fs: &FileState<'_>) -> bool {
    match func {
        Expr::Name(n) => {
            fs.imports.get(n.id.as_str()).map(String::as_str) == Some("functools.partial")
        }
        Expr::Attribute(a) => {
            a.attr.id.as_str() == "partial"
                && matches!(&*a.value, Expr::Name(n)
                    if fs.imports.get(n.id.as_str()).map(String::as_str) == Some("functools"))
        }
        _ => false,
    }
}

impl Walker<'_, '_> {
    /// The call a call of a `partial` stands for, when it passes an enlarged value: the bound
    /// arguments first, then the call's; a keyword of the call replaces a bound one.
    pub(in crate::analysis::dataflow) fn partial_call(
        &self,
        call: &ast::ExprCall,
    ) -> Option<ast::ExprCall> {
        if self.fs.partials.is_empty() {
            return None;
        }
        let key = match &*call.func {
            Expr::Name(n) => {
                let local = self
                    .returns
                    .is_some()
                    .then(|| format!("{}:{}", self.scope_range.start().to_u32(), n.id));
                let module = format!("{MODULE}:{}", n.id);
                match local.filter(|k| self.fs.partials.contains_key(k)) {
                    Some(k) => k,
                    None if self.returns.is_none() || !self.bound_here.contains(n.id.as_str()) => {
                        module
                    }
                    None => return None,
                }
            }
            Expr::Attribute(a) if matches!(&*a.value, Expr::Name(n) if n.id.as_str() == "self") => {
                format!("{}.self.{}", self.class_name.as_deref()?, a.attr.id)
            }
            _ => return None,
        };
        let partial = *self.fs.partials.get(&key)?;
        let (func, bound) = partial.arguments.args.split_first()?;
        let starred = |args: &[Expr]| args.iter().any(|a| matches!(a, Expr::Starred(_)));
        let spread = |kws: &[ast::Keyword]| kws.iter().any(|k| k.arg.is_none());
        // A partial of a partial is not followed (nor one that binds itself).
        if starred(bound)
            || spread(&partial.arguments.keywords)
            || spread(&call.arguments.keywords)
            || self.partial_call_key(func)
            || !self.passes_enlarged(call)
        {
            return None;
        }
        let given = |k: &ast::Keyword| {
            call.arguments.keywords.iter().any(|c| {
                c.arg.as_ref().map(|a| a.id.as_str()) == k.arg.as_ref().map(|a| a.id.as_str())
            })
        };
        let keywords: Vec<ast::Keyword> = partial
            .arguments
            .keywords
            .iter()
            .filter(|k| !given(k))
            .chain(call.arguments.keywords.iter())
            .cloned()
            .collect();
        let args: Vec<Expr> = bound
            .iter()
            .chain(call.arguments.args.iter())
            .cloned()
            .collect();
        Some(ast::ExprCall {
            node_index: Default::default(),
            range_start: call.range_start,
            func: Box::new(func.clone()),
            arguments: ast::Arguments {
                range: call.arguments.range,
                node_index: Default::default(),
                args: args.into_boxed_slice(),
                keywords: keywords.into(),
            },
        })
    }

    /// Does `func` name a partial itself?
    fn partial_call_key(&self, func: &Expr) -> bool {
        match func {
            Expr::Name(n) => self.fs.partials.keys().any(|k| {
                k.rsplit_once(':')
                    .is_some_and(|(_, name)| name == n.id.as_str())
            }),
            Expr::Attribute(a) => self
                .fs
                .partials
                .keys()
                .any(|k| k.ends_with(&format!(".self.{}", a.attr.id))),
            _ => false,
        }
    }
}
