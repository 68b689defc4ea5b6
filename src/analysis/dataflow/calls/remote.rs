//! Calls into another file of the project: the caller records what it passes (a
//! [`PassedCall`]); the callee's file walks the function with those values (see the module
//! `passed` of `analysis`).

use std::rc::Rc;

use crate::source::Ranged;
use crate::source::ast::{self, Expr};

use crate::analysis::facts::{Fact, Step, StepRole, ValueKind};
use crate::analysis::{PassedCall, PassedValue};

use super::super::FileState;
use super::super::stmt::{Walker, dotted_key};
use super::{Callee, bind_params, walk_callee};

impl Walker<'_, '_> {
    /// The function of another file of the project that a call names: an imported class's
    /// `forward` (`self.block(x)` with `self.block = Block(...)`), a method of an imported base
    /// (`self.norm(x)`, `super().norm(x)`), an imported function. Its qualified name as the
    /// imports spell it, whether it is called through an object, and what the call names.
    fn resolve_remote(&self, func: &Expr) -> Option<(String, bool, String)> {
        match func {
            Expr::Attribute(a) => {
                let class = self.class_name.as_deref()?;
                let attr = a.attr.id.as_str();
                match &*a.value {
                    Expr::Name(recv) if recv.id.as_str() == "self" => {
                        let q = match self.fs.submodules.get(&format!("{class}.{attr}")) {
                            Some(sub) => self.remote_method(sub, "forward", 0)?,
                            None => self.remote_method(class, attr, 0)?,
                        };
                        Some((q, true, format!("self.{attr}")))
                    }
                    Expr::Call(c) if matches!(&*c.func, Expr::Name(n) if n.id.as_str() == "super") =>
                    {
                        let q = self
                            .fs
                            .class_bases
                            .get(class)?
                            .iter()
                            .find_map(|base| self.remote_method(base, attr, 0))?;
                        Some((q, true, format!("super().{attr}")))
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
                Some((q, false, id.to_string()))
            }
            _ => None,
        }
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
        let Some((callee, bound, named)) = self.resolve_remote(&call.func) else {
            return;
        };
        if !self.passes_enlarged(call) {
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
                let name_it = |param: &str, _: Option<usize>, mut f: Fact| {
                    if let Some(e) = &f.enlarged {
                        let mut e = (**e).clone();
                        if let Some(step) = e.steps.last_mut() {
                            step.code = step.code.replacen(
                                "passed to",
                                &format!("passed as `{param}` to"),
                                1,
                            );
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
