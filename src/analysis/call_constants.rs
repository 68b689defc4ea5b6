//! Counts that every call of the project fixes: a parameter used as a `repeat` /
//! `repeat_interleave` / `tile` / `expand` count (`z.repeat_interleave(multiplicity, 0)`) whose
//! every call in the project passes the same integer, written as a literal, left to a literal
//! default, or passed on from a caller's parameter that is itself fixed (Boltz's affinity
//! module, only ever called with `multiplicity=1`). A repeat by 1 copies nothing larger, so the
//! function is walked with that value.
//!
//! The calls are read from the syntax of every file that names the function, and the value
//! counts only when every mention of the name is such a call: a name passed as a callback, read
//! through `getattr`, subclassed or kept in a variable may be called with anything. A module's
//! `forward` is reached through the attributes `__init__` stores it on (`self.head =
//! Head(...)`, then `self.head(x, n=1)`), and every mention of those attributes must be a call
//! or a rewrap (`self.head = torch.compile(self.head)`).

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::source::Ranged;
use crate::source::TextRange;
use crate::source::ast::visitor::{self, Visitor};
use crate::source::ast::{self, Expr, Stmt};

use super::shape_infer::literal_int;

/// The ops whose count arguments make a parameter a candidate.
const COUNT_OPS: [&str; 4] = ["repeat", "repeat_interleave", "tile", "expand"];

/// A parameter of a function of the project used as an enlarger's count in its body.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CountParam {
    /// The function's qualified name (`pkg.mod.Class.forward`).
    pub qualname: String,
    /// Its own name (`forward`).
    pub function: String,
    /// The class it is a method of.
    pub class: Option<String>,
    pub param: String,
    /// Its position among the positional parameters, the receiver of a method not counted;
    /// None for a keyword-only one.
    pub index: Option<usize>,
    /// Whether a call may leave it out, and the integer it then takes when its default is one.
    pub has_default: bool,
    pub default: Option<i64>,
}

/// The parameters of the module's functions and of its classes' methods used as counts, in the
/// functions whose text holds one of `reported` (only a finding can change).
pub fn count_params(body: &[Stmt], module: &str, reported: &[TextRange]) -> Vec<CountParam> {
    let mut out = Vec::new();
    for stmt in body {
        match stmt {
            Stmt::FunctionDef(f) => function_counts(f, None, module, reported, &mut out),
            Stmt::ClassDef(c) => {
                for item in &c.body {
                    if let Stmt::FunctionDef(f) = item {
                        let class = c.name.id.to_string();
                        function_counts(f, Some(class), module, reported, &mut out);
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Whether a method's first parameter is its receiver (not a `staticmethod`).
fn takes_receiver(f: &ast::StmtFunctionDef, class: Option<&str>) -> bool {
    class.is_some()
        && !f
            .decorator_list
            .iter()
            .any(|d| matches!(&d.expression, Expr::Name(n) if n.id.as_str() == "staticmethod"))
}

fn function_counts(
    f: &ast::StmtFunctionDef,
    class: Option<String>,
    module: &str,
    reported: &[TextRange],
    out: &mut Vec<CountParam>,
) {
    // A decorated function may be registered and called by name from anywhere (`@register`).
    let plain = f.decorator_list.iter().all(|d| {
        matches!(&d.expression, Expr::Name(n)
            if matches!(n.id.as_str(), "staticmethod" | "classmethod"))
    });
    if !plain || !reported.iter().any(|r| f.range.contains_range(*r)) {
        return;
    }
    let skip = usize::from(takes_receiver(f, class.as_deref()));
    let params = &f.parameters;
    let positional: Vec<&ast::ParameterWithDefault> =
        params.posonlyargs.iter().chain(&params.args).collect();
    let mut used = CountNames::default();
    for stmt in &f.body {
        used.visit_stmt(stmt);
    }
    let qualname = match &class {
        Some(c) => format!("{module}.{c}.{}", f.name.id),
        None => format!("{module}.{}", f.name.id),
    };
    let all = positional
        .iter()
        .enumerate()
        .skip(skip)
        .map(|(i, p)| (Some(i - skip), *p))
        .chain(params.kwonlyargs.iter().map(|p| (None, p)));
    for (index, p) in all {
        let name = p.parameter.name.id.as_str();
        if !used.names.contains(name) || rebinds(&f.body, name) {
            continue;
        }
        out.push(CountParam {
            qualname: qualname.clone(),
            function: f.name.id.to_string(),
            class: class.clone(),
            param: name.to_string(),
            index,
            has_default: p.default.is_some(),
            default: p.default.as_deref().and_then(literal_int),
        });
    }
}

fn rebinds(body: &[Stmt], name: &str) -> bool {
    body.iter()
        .any(|stmt| super::chain::stored_names(stmt).contains(name))
}

/// Names passed as arguments to an enlarger (`x.repeat(1, n)`, `torch.repeat_interleave(x, n)`).
#[derive(Default)]
struct CountNames {
    names: HashSet<String>,
}

impl<'a> Visitor<'a> for CountNames {
    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Call(call) = expr
            && let Expr::Attribute(a) = &*call.func
            && COUNT_OPS.contains(&a.attr.id.as_str())
        {
            let args = call.arguments.args.iter();
            let keywords = call.arguments.keywords.iter().map(|k| &k.value);
            for arg in args.chain(keywords) {
                let arg = match arg {
                    Expr::Starred(s) => &*s.value,
                    other => other,
                };
                if let Expr::Name(n) = arg {
                    self.names.insert(n.id.to_string());
                }
            }
        }
        visitor::walk_expr(self, expr);
    }
}

/// What a call passes for a parameter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ArgValue {
    Int(i64),
    /// A parameter of the calling function, not rebound in its body.
    Param {
        function: String,
        param: String,
    },
    Other,
}

/// A call of a function or method named like a candidate, or of a module stored on `self`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CallRecord {
    /// The name called (`build` of `build(x)` / `m.build(x)`), or the attribute of
    /// `self.head(x)`.
    pub name: String,
    /// `self.<attr>(...)` of an attribute that names no candidate function.
    pub self_attr: bool,
    /// `Class.method(obj, ...)`: the receiver is passed as an argument.
    pub explicit_receiver: bool,
    pub args: Vec<ArgValue>,
    pub keywords: Vec<(String, ArgValue)>,
    /// A `*args` or `**kwargs` hides what is passed.
    pub opaque: bool,
}

/// One file's calls and mentions of the candidates' names.
#[derive(Clone, Debug, Default)]
pub struct FileCalls {
    pub calls: Vec<CallRecord>,
    /// Candidate names (functions, classes) used other than by a call or a definition.
    pub mentions: HashSet<String>,
    /// Attributes read other than by `self.<attr>(...)` or a rewrap.
    pub attr_mentions: HashSet<String>,
    /// `self.<attr> = Class(...)` of a candidate class.
    pub constructions: Vec<(String, String)>,
    /// Every definition of a candidate function, by its name.
    pub defs: Vec<(String, DefParams)>,
}

/// A definition's parameters: positional ones (the receiver not counted), then keyword-only.
#[derive(Clone, Debug, Default)]
pub struct DefParams {
    pub positional: Vec<String>,
    pub keyword_only: Vec<String>,
}

/// The names a project's census looks for.
pub struct Targets {
    /// Functions and methods other than `forward`.
    pub functions: HashSet<String>,
    /// Classes whose `forward` is a candidate.
    pub classes: HashSet<String>,
}

impl Targets {
    pub fn new(params: &[CountParam]) -> Targets {
        let mut functions = HashSet::new();
        let mut classes = HashSet::new();
        for p in params {
            match (&p.class, p.function.as_str()) {
                (Some(class), "forward") => {
                    classes.insert(class.clone());
                }
                _ => {
                    functions.insert(p.function.clone());
                }
            }
        }
        Targets { functions, classes }
    }

    /// Every name whose mention makes a file worth reading.
    pub fn names(&self) -> impl Iterator<Item = &String> {
        self.functions.iter().chain(&self.classes)
    }
}

/// Reads a module's calls and mentions of the targets.
pub fn file_calls(body: &[Stmt], module: &str, targets: &Targets) -> FileCalls {
    let mut census = Census {
        targets,
        out: FileCalls::default(),
        scope: None,
    };
    for stmt in body {
        match stmt {
            Stmt::ClassDef(c) => {
                census.visit_class(c, module);
            }
            Stmt::FunctionDef(f) => census.visit_function(f, None, module),
            other => census.visit_stmt(other),
        }
    }
    census.out
}

/// The function being read: its qualified name and the parameters it does not rebind.
struct Scope {
    qualname: String,
    params: HashSet<String>,
}

struct Census<'t> {
    targets: &'t Targets,
    out: FileCalls,
    scope: Option<Scope>,
}

impl Census<'_> {
    fn visit_class(&mut self, c: &ast::StmtClassDef, module: &str) {
        for d in &c.decorator_list {
            self.visit_expr(&d.expression);
        }
        if let Some(arguments) = &c.arguments {
            for arg in &arguments.args {
                self.visit_expr(arg);
            }
            for k in &arguments.keywords {
                self.visit_expr(&k.value);
            }
        }
        let class = c.name.id.to_string();
        for item in &c.body {
            match item {
                Stmt::FunctionDef(f) => self.visit_function(f, Some(&class), module),
                other => self.visit_stmt(other),
            }
        }
    }

    fn visit_function(&mut self, f: &ast::StmtFunctionDef, class: Option<&str>, module: &str) {
        let name = f.name.id.as_str();
        let skip = usize::from(takes_receiver(f, class));
        if self.targets.functions.contains(name) {
            let p = &f.parameters;
            let positional = p
                .posonlyargs
                .iter()
                .chain(&p.args)
                .skip(skip)
                .map(|a| a.parameter.name.id.to_string())
                .collect();
            let keyword_only = p
                .kwonlyargs
                .iter()
                .map(|a| a.parameter.name.id.to_string())
                .collect();
            self.out.defs.push((
                name.to_string(),
                DefParams {
                    positional,
                    keyword_only,
                },
            ));
        }
        for d in &f.decorator_list {
            self.visit_expr(&d.expression);
        }
        for p in f.parameters.iter_non_variadic_params() {
            if let Some(default) = &p.default {
                self.visit_expr(default);
            }
        }
        let params = f
            .parameters
            .iter_non_variadic_params()
            .map(|p| p.parameter.name.id.to_string())
            .filter(|p| !rebinds(&f.body, p))
            .collect();
        let qualname = match class {
            Some(c) => format!("{module}.{c}.{name}"),
            None => format!("{module}.{name}"),
        };
        let saved = self.scope.replace(Scope { qualname, params });
        for stmt in &f.body {
            self.visit_stmt(stmt);
        }
        self.scope = saved;
    }

    fn value(&self, arg: &Expr) -> ArgValue {
        if let Some(v) = literal_int(arg) {
            return ArgValue::Int(v);
        }
        match (arg, &self.scope) {
            (Expr::Name(n), Some(scope)) if scope.params.contains(n.id.as_str()) => {
                ArgValue::Param {
                    function: scope.qualname.clone(),
                    param: n.id.to_string(),
                }
            }
            _ => ArgValue::Other,
        }
    }

    /// Records a call of a target or of a module on `self`; false when the callee is neither.
    fn record_call(&mut self, call: &ast::ExprCall) -> bool {
        let (name, self_attr, explicit_receiver) = match &*call.func {
            Expr::Name(n) if self.targets.functions.contains(n.id.as_str()) => {
                (n.id.to_string(), false, false)
            }
            Expr::Attribute(a) if self.targets.functions.contains(a.attr.id.as_str()) => {
                // `Class.method(obj, ...)` passes the receiver itself.
                let explicit = matches!(&*a.value, Expr::Name(n)
                    if n.id.chars().next().is_some_and(char::is_uppercase));
                self.visit_expr(&a.value);
                (a.attr.id.to_string(), false, explicit)
            }
            Expr::Attribute(a) if is_self(&a.value) => (a.attr.id.to_string(), true, false),
            _ => return false,
        };
        let mut opaque = false;
        let mut args = Vec::new();
        for arg in &call.arguments.args {
            if matches!(arg, Expr::Starred(_)) {
                opaque = true;
            } else if !opaque {
                args.push(self.value(arg));
            }
        }
        let mut keywords = Vec::new();
        for k in &call.arguments.keywords {
            match &k.arg {
                Some(id) => keywords.push((id.to_string(), self.value(&k.value))),
                None => opaque = true,
            }
        }
        self.out.calls.push(CallRecord {
            name,
            self_attr,
            explicit_receiver,
            args,
            keywords,
            opaque,
        });
        self.visit_arguments(call);
        true
    }

    /// `self.<attr> = Class(...)` of a target class, or `self.<attr> = wrap(self.<attr>, ...)`:
    /// handled here (true) so that neither counts as a mention.
    fn record_store(&mut self, target: &Expr, value: &Expr) -> bool {
        let Expr::Attribute(t) = target else {
            return false;
        };
        let Expr::Call(call) = value else {
            return false;
        };
        if !is_self(&t.value) {
            return false;
        }
        let class = match &*call.func {
            Expr::Name(n) => Some(n.id.as_str()),
            Expr::Attribute(a) => Some(a.attr.id.as_str()),
            _ => None,
        }
        .filter(|c| self.targets.classes.contains(*c));
        if let Some(class) = class {
            self.out
                .constructions
                .push((t.attr.id.to_string(), class.to_string()));
            self.visit_arguments(call);
            return true;
        }
        let rewraps = matches!(call.arguments.args.first(), Some(Expr::Attribute(first))
            if is_self(&first.value) && first.attr.id == t.attr.id);
        if rewraps {
            self.visit_expr(&call.func);
            for arg in call.arguments.args.iter().skip(1) {
                self.visit_expr(arg);
            }
            for k in &call.arguments.keywords {
                self.visit_expr(&k.value);
            }
        }
        rewraps
    }

    fn visit_arguments(&mut self, call: &ast::ExprCall) {
        for arg in &call.arguments.args {
            self.visit_expr(arg);
        }
        for k in &call.arguments.keywords {
            self.visit_expr(&k.value);
        }
    }
}

fn is_self(expr: &Expr) -> bool {
    matches!(expr, Expr::Name(n) if n.id.as_str() == "self")
}

impl<'a> Visitor<'a> for Census<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            // Imports name a target without using it.
            Stmt::Import(_) | Stmt::ImportFrom(_) => {}
            Stmt::Assign(a)
                if a.targets.len() == 1 && self.record_store(&a.targets[0], &a.value) => {}
            // Nested definitions: their calls pass their own parameters, which no summary
            // names (they read as other values).
            Stmt::FunctionDef(f) => {
                let saved = self.scope.take();
                self.visit_function(f, None, "<nested>");
                self.scope = saved;
            }
            Stmt::ClassDef(c) => {
                let saved = self.scope.take();
                self.visit_class(c, "<nested>");
                self.scope = saved;
            }
            _ => visitor::walk_stmt(self, stmt),
        }
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Call(call) if self.record_call(call) => {}
            Expr::Name(n) => {
                let id = n.id.as_str();
                if self.targets.functions.contains(id) || self.targets.classes.contains(id) {
                    self.out.mentions.insert(id.to_string());
                }
            }
            Expr::Attribute(a) => {
                let attr = a.attr.id.as_str();
                if self.targets.functions.contains(attr) || self.targets.classes.contains(attr) {
                    self.out.mentions.insert(attr.to_string());
                }
                if is_self(&a.value) {
                    self.out.attr_mentions.insert(attr.to_string());
                }
                visitor::walk_expr(self, expr);
            }
            _ => visitor::walk_expr(self, expr),
        }
    }
}

/// The project's calls of every candidate, read together.
#[derive(Default)]
pub struct ProjectCalls {
    calls: HashMap<String, Vec<CallRecord>>,
    self_calls: HashMap<String, Vec<CallRecord>>,
    mentions: HashSet<String>,
    attr_mentions: HashSet<String>,
    constructions: HashMap<String, HashSet<String>>,
    defs: HashMap<String, Vec<DefParams>>,
}

impl ProjectCalls {
    pub fn add(&mut self, file: FileCalls) {
        for call in file.calls {
            let map = if call.self_attr {
                &mut self.self_calls
            } else {
                &mut self.calls
            };
            map.entry(call.name.clone()).or_default().push(call);
        }
        self.mentions.extend(file.mentions);
        self.attr_mentions.extend(file.attr_mentions);
        for (attr, class) in file.constructions {
            self.constructions.entry(attr).or_default().insert(class);
        }
        for (name, params) in file.defs {
            self.defs.entry(name).or_default().push(params);
        }
    }
}

/// The parameters whose every call passes the integer 1, by the function's qualified name.
pub fn unit_counts(params: &[CountParam], project: &ProjectCalls) -> HashMap<String, Vec<String>> {
    let by_key: HashMap<(&str, &str), &CountParam> = params
        .iter()
        .map(|p| ((p.qualname.as_str(), p.param.as_str()), p))
        .collect();
    let mut memo: HashMap<(String, String), Option<i64>> = HashMap::new();
    let mut out: HashMap<String, Vec<String>> = HashMap::new();
    for p in params {
        if fixed_value(p, project, &by_key, &mut memo, &mut Vec::new()) == Some(1) {
            let list = out.entry(p.qualname.clone()).or_default();
            if !list.contains(&p.param) {
                list.push(p.param.clone());
            }
        }
    }
    out
}

type Key = (String, String);

/// The one integer every call of the project passes for `p`, when there is one.
fn fixed_value(
    p: &CountParam,
    project: &ProjectCalls,
    by_key: &HashMap<(&str, &str), &CountParam>,
    memo: &mut HashMap<Key, Option<i64>>,
    visiting: &mut Vec<Key>,
) -> Option<i64> {
    let key = (p.qualname.clone(), p.param.clone());
    if let Some(v) = memo.get(&key) {
        return *v;
    }
    if visiting.contains(&key) {
        return None;
    }
    visiting.push(key.clone());
    let value = calls_of(p, project).and_then(|calls| {
        let mut seen = None;
        for call in calls {
            let v = match passed(p, call) {
                ArgValue::Int(v) => v,
                ArgValue::Param { function, param } => {
                    let upstream = by_key.get(&(function.as_str(), param.as_str()))?;
                    fixed_value(upstream, project, by_key, memo, visiting)?
                }
                ArgValue::Other => return None,
            };
            if seen.is_some_and(|s| s != v) {
                return None;
            }
            seen = Some(v);
        }
        seen
    });
    visiting.pop();
    memo.insert(key, value);
    value
}

/// Every call of the project that may reach `p`'s function; None when some use of it is not
/// a call the census read.
fn calls_of<'p>(p: &CountParam, project: &'p ProjectCalls) -> Option<Vec<&'p CallRecord>> {
    let calls: Vec<&CallRecord> = match (&p.class, p.function.as_str()) {
        (Some(class), "forward") => {
            if project.mentions.contains(class) {
                return None;
            }
            let attrs: Vec<&String> = project
                .constructions
                .iter()
                .filter(|(_, classes)| classes.contains(class))
                .map(|(attr, _)| attr)
                .collect();
            let mut calls = Vec::new();
            for attr in attrs {
                let only_this_class = project
                    .constructions
                    .get(attr)
                    .is_some_and(|c| c.len() == 1);
                if !only_this_class || project.attr_mentions.contains(attr) {
                    return None;
                }
                calls.extend(project.self_calls.get(attr).into_iter().flatten());
            }
            calls
        }
        (_, name) => {
            if project.mentions.contains(name) {
                return None;
            }
            // Every definition of the name takes the parameter at the same place.
            let defs = project.defs.get(name)?;
            let same_place = defs.iter().all(|d| match p.index {
                Some(i) => d.positional.get(i) == Some(&p.param),
                None => d.keyword_only.contains(&p.param),
            });
            if !same_place {
                return None;
            }
            project.calls.get(name).into_iter().flatten().collect()
        }
    };
    let readable = !calls.is_empty() && calls.iter().all(|c| !c.opaque && !c.explicit_receiver);
    readable.then_some(calls)
}

/// What one call passes for `p`: by position, by keyword, or the default.
fn passed(p: &CountParam, call: &CallRecord) -> ArgValue {
    if let Some(v) = p.index.and_then(|i| call.args.get(i)) {
        return v.clone();
    }
    if let Some((_, v)) = call.keywords.iter().find(|(k, _)| *k == p.param) {
        return v.clone();
    }
    match p.default {
        Some(v) if p.has_default => ArgValue::Int(v),
        _ => ArgValue::Other,
    }
}

#[cfg(test)]
mod tests;
