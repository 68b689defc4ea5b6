//! Calls into another file of the project: the caller records what it passes (a
//! [`PassedCall`]); the callee's file walks the function with those values (see the module
//! `passed` of `analysis`).

use std::rc::Rc;

use crate::source::Ranged;
use crate::source::ast::{self, Expr};

use crate::analysis::facts::{Fact, Step, StepRole, ValueKind};
use crate::analysis::passed::Guess;
use crate::analysis::{PassedCall, PassedValue};

use super::super::FileState;
use super::super::stmt::{Walker, dotted_key};
use super::{Callee, bind_params, walk_callee};

/// Where a call into another file leads, as the caller sees it.
struct Remote {
    /// The callee's qualified name as the imports spell it; for a guess, the method's name.
    callee: String,
    /// Called through an object: its first parameter is that.
    bound: bool,
    /// What the call names (`self.block`, `emb.rotate`).
    named: String,
    /// For a guess: the receiver whose class is not known (`emb`).
    guess: Option<String>,
}

impl Remote {
    fn known(callee: String, bound: bool, named: String) -> Self {
        Remote {
            callee,
            bound,
            named,
            guess: None,
        }
    }
}

impl Walker<'_, '_> {
    /// The function of another file of the project that a call names: an imported class's
    /// `forward` (`self.block(x)` with `self.block = Block(...)`), a method of an imported base
    /// (`self.norm(x)`, `super().norm(x)`), an imported function. Its qualified name as the
    /// imports spell it, whether it is called through an object, and what the call names; or a
    /// guess (see [`Walker::guessed_method`]).
    fn resolve_remote(&self, func: &Expr) -> Option<Remote> {
        match func {
            Expr::Attribute(a) => {
                if let Some(guess) = self.guessed_method(a) {
                    return Some(guess);
                }
                let class = self.class_name.as_deref()?;
                let attr = a.attr.id.as_str();
                match &*a.value {
                    Expr::Name(recv) if recv.id.as_str() == "self" => {
                        let q = match self.fs.submodules.get(&format!("{class}.{attr}")) {
                            Some(sub) => self.remote_method(sub, "forward", 0)?,
                            None => self.remote_method(class, attr, 0)?,
                        };
                        Some(Remote::known(q, true, format!("self.{attr}")))
                    }
                    Expr::Call(c) if matches!(&*c.func, Expr::Name(n) if n.id.as_str() == "super") =>
                    {
                        let q = self
                            .fs
                            .class_bases
                            .get(class)?
                            .iter()
                            .find_map(|base| self.remote_method(base, attr, 0))?;
                        Some(Remote::known(q, true, format!("super().{attr}")))
                    }
                    _ => None,
                }
            }
            Expr::Name(n) => {
                let id = n.id.as_str();
                if self.env.contains_key(id) || self.fs.module_functions.contains(id) {
                    return None;
                }
                let q = self.in_project(self.fs.imports.get(id)?)?;
                Some(Remote::known(q, false, id.to_string()))
            }
            _ => None,
        }
    }

    /// `obj.meth(...)` on an object whose class nothing here says (a parameter, an attribute set
    /// from one, a value of unknown origin; not a tensor, a module, a class, `self` or `super()`)
    /// and whose method's name is none that torch, `nn.Module` or a builtin type has: recorded by
    /// that name alone; it leads somewhere only if one class of the project defines it.
    fn guessed_method(&self, a: &ast::ExprAttribute) -> Option<Remote> {
        let name = a.attr.id.as_str();
        if !crate::analysis::torch_api::guessable_method(name) {
            return None;
        }
        let receiver = match &*a.value {
            Expr::Name(n) if !matches!(n.id.as_str(), "self" | "cls") => n.id.to_string(),
            Expr::Attribute(inner) if matches!(&*inner.value, Expr::Name(n) if n.id.as_str() == "self") =>
            {
                let attr = inner.attr.id.as_str();
                let class = self.class_name.as_deref().unwrap_or("");
                // A submodule `__init__` builds: its class is known (or is torch's).
                if self.fs.submodules.contains_key(&format!("{class}.{attr}"))
                    || self.fs.class_modules.contains_key(attr)
                {
                    return None;
                }
                format!("self.{attr}")
            }
            _ => return None,
        };
        if self.module_path(&a.value).is_some() {
            return None;
        }
        // A join forgets what is unknown on every path: a name this function binds (a
        // parameter) is still that.
        match self.env.get(&receiver) {
            Some(f) if f.kind == ValueKind::Unknown && f.enlarged.is_none() => {}
            None if receiver.starts_with("self.") || self.bound_here.contains(&receiver) => {}
            _ => return None,
        }
        Some(Remote {
            callee: name.to_string(),
            bound: true,
            named: format!("{receiver}.{name}"),
            guess: Some(receiver),
        })
    }

    /// `name` of `class` (a class of this file or one it imports), found in an imported class.
    fn remote_method(&self, class: &str, name: &str, depth: usize) -> Option<String> {
        if depth > 8 {
            return None;
        }
        match self.fs.class_bases.get(class) {
            Some(bases) => {
                let local = format!("{}.{class}.{name}", self.fs.module.qualname);
                if self.fs.defs.contains_key(&local) {
                    return None;
                }
                bases
                    .iter()
                    .find_map(|base| self.remote_method(base, name, depth + 1))
            }
            None => {
                let path = self.in_project(self.fs.imports.get(class)?)?;
                Some(format!("{path}.{name}"))
            }
        }
    }

    /// A dotted path of this project (its top package is this module's): other libraries'
    /// functions are not followed.
    fn in_project(&self, path: &str) -> Option<String> {
        let top = |p: &str| p.split('.').next().unwrap_or("").to_string();
        (top(path) == top(&self.fs.module.qualname)).then(|| path.to_string())
    }

    /// Records the enlarged values (held by names) that a call passes to another file's function.
    pub(in crate::analysis::dataflow) fn record_remote_pass(&mut self, call: &ast::ExprCall) {
        let Some(Remote {
            callee,
            bound,
            named,
            guess,
        }) = self.resolve_remote(&call.func)
        else {
            return;
        };
        if !self.passes_enlarged(call) {
            return;
        }
        // A guess is checked against the method's parameters: every argument must be seen.
        let unseen = call
            .arguments
            .args
            .iter()
            .any(|a| matches!(a, Expr::Starred(_)))
            || call.arguments.keywords.iter().any(|k| k.arg.is_none());
        if guess.is_some() && unseen {
            return;
        }
        let display = self.fs.module.display_path.clone();
        let stmt = self.stmt_range;
        let value = |w: &Self, arg: &Expr| -> Option<PassedValue> {
            let fact = w.env.get(&dotted_key(arg)?)?;
            let mut enlarged = (**fact.enlarged.as_ref()?).clone();
            // Whether the callee is the function these names lead to is not certain.
            enlarged.may = true;
            enlarged.copy_origin = None;
            enlarged.steps.push(Step {
                role: StepRole::Argument,
                file: None,
                range: arg.range(),
                // The callee's file names the parameter (see `walk_passed_in`).
                code: format!("passed to `{named}`"),
                receiver: None,
                stmt,
            });
            for step in &mut enlarged.steps {
                step.file.get_or_insert_with(|| display.clone());
            }
            Some(PassedValue {
                enlarged,
                dtype: fact.dtype,
                placement: fact.placement,
            })
        };
        let args: Vec<Option<PassedValue>> = call
            .arguments
            .args
            .iter()
            .take_while(|a| !matches!(a, Expr::Starred(_)))
            .map(|a| value(self, a))
            .collect();
        let keywords: Vec<(String, PassedValue)> = call
            .arguments
            .keywords
            .iter()
            .filter_map(|k| Some((k.arg.as_ref()?.id.to_string(), value(self, &k.value)?)))
            .collect();
        if args.iter().all(Option::is_none) && keywords.is_empty() {
            return;
        }
        let call = PassedCall {
            callee,
            bound,
            args,
            keywords,
            guess: guess.map(|receiver| Guess {
                receiver,
                keywords: call
                    .arguments
                    .keywords
                    .iter()
                    .filter_map(|k| Some(k.arg.as_ref()?.id.to_string()))
                    .collect(),
            }),
        };
        if !self.fs.passed_out.contains(&call) {
            self.fs.passed_out.push(call);
        }
    }
}

impl<'a> FileState<'a> {
    /// Walks each function of this file that another file's call passes enlarged values to.
    pub(in crate::analysis::dataflow) fn walk_passed_in(&mut self) {
        if !self.summaries.has_passed() {
            return;
        }
        let mut targets: Vec<(String, &'a ast::StmtFunctionDef)> =
            self.defs.iter().map(|(q, d)| (q.clone(), *d)).collect();
        targets.sort_by(|a, b| a.0.cmp(&b.0));
        let summaries = self.summaries;
        for (qualname, def) in targets {
            let rest = qualname
                .strip_prefix(&*self.module.qualname)
                .and_then(|r| r.strip_prefix('.'))
                .unwrap_or(&qualname);
            let class = rest.split_once('.').map(|(c, _)| c.to_string());
            for call in summaries.passed_into(&qualname) {
                let fact = |v: &PassedValue| Fact {
                    kind: ValueKind::Tensor,
                    dtype: v.dtype,
                    shape: v.enlarged.shape.clone(),
                    enlarged: Some(Rc::new(v.enlarged.clone())),
                    placement: v.placement,
                    ..Fact::default()
                };
                let positional: Vec<Option<Fact>> =
                    call.args.iter().map(|a| a.as_ref().map(fact)).collect();
                let keywords: Vec<(String, Fact)> = call
                    .keywords
                    .iter()
                    .map(|(k, v)| (k.clone(), fact(v)))
                    .collect();
                let callee = Callee {
                    qualname: qualname.clone(),
                    name: def.name.id.to_string(),
                    def,
                    class: class.clone(),
                    bound: call.bound,
                };
                // A guess leads here only if the call could bind this method's parameters.
                if let Some(guess) = &call.guess
                    && !accepts(def, call.args.len(), &guess.keywords)
                {
                    continue;
                }
                let display = self.module.display_path.clone();
                let owner = class.as_deref().unwrap_or("");
                let name_it = |param: &str, _: Option<usize>, mut f: Fact| {
                    if let Some(e) = &f.enlarged {
                        let mut e = (**e).clone();
                        if let Some(step) = e.steps.last_mut() {
                            step.code = match &call.guess {
                                Some(guess) => format!(
                                    "{}, if `{}` is a `{owner}` (the only class of the project with a method `{}`)",
                                    step.code.replacen(
                                        "passed to",
                                        &format!("passed as `{param}` to"),
                                        1
                                    ),
                                    guess.receiver,
                                    def.name.id,
                                ),
                                None => step.code.replacen(
                                    "passed to",
                                    &format!("passed as `{param}` to"),
                                    1,
                                ),
                            };
                        }
                        // The caller may be this file: its steps are this file's own.
                        for step in &mut e.steps {
                            if step.file.as_deref() == Some(&*display) {
                                step.file = None;
                            }
                        }
                        f.enlarged = Some(Rc::new(e));
                    }
                    f
                };
                let bindings = bind_params(def, call.bound, &positional, &keywords, None, &name_it);
                walk_callee(self, &callee, bindings, Default::default());
            }
        }
    }
}

/// Could a call with `n_args` positional arguments and these keywords bind `def`'s parameters
/// (called through an object)? Not more positional arguments than it takes, every keyword one of
/// its parameters and none bound twice, every parameter without a default given.
fn accepts(def: &ast::StmtFunctionDef, n_args: usize, keywords: &[String]) -> bool {
    let params = &def.parameters;
    let is_static = def
        .decorator_list
        .iter()
        .any(|d| matches!(&d.expression, Expr::Name(n) if n.id.as_str() == "staticmethod"));
    let skip = usize::from(!is_static);
    let positional: Vec<_> = params
        .posonlyargs
        .iter()
        .chain(&params.args)
        .skip(skip)
        .collect();
    if n_args > positional.len() && params.vararg.is_none() {
        return false;
    }
    let named = |k: &str| {
        positional
            .iter()
            .copied()
            .chain(params.kwonlyargs.iter())
            .any(|p| p.parameter.name.id.as_str() == k)
    };
    if params.kwarg.is_none() && !keywords.iter().all(|k| named(k)) {
        return false;
    }
    // A keyword naming a parameter the positional arguments already bind is a `TypeError`.
    let bound_twice = positional
        .iter()
        .take(n_args)
        .any(|p| keywords.iter().any(|k| k == p.parameter.name.id.as_str()));
    if bound_twice {
        return false;
    }
    positional
        .iter()
        .copied()
        .skip(n_args)
        .chain(params.kwonlyargs.iter())
        .filter(|p| p.default.is_none())
        .all(|p| keywords.iter().any(|k| k == p.parameter.name.id.as_str()))
}
