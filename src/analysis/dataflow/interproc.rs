//! Across functions: a function body is walked in a fresh scope and, when it returns an enlarged
//! value, summarized; a call of a summarized function continues the callee's chain with the
//! caller's arguments substituted into its shape.

use std::collections::HashMap;
use std::rc::Rc;

use crate::source::Ranged;
use crate::source::ast::{self, Expr};

use crate::analysis::dtype_infer::annotation_fact;
use crate::analysis::facts::SiteId;
use crate::analysis::facts::{Dim, Fact, Placement, Step, StepRole, SymExpr, ValueKind};
use crate::analysis::shape_infer::sym_expr;
use crate::analysis::{FunctionSummary, SinkKind};

use super::stmt::Walker;
use super::{Env, FileState};

impl Walker<'_, '_> {
    /// A call of a function of this file that returns a materialized broadcast view: its result
    /// is that copy (a write to it in place shows the copy was needed).
    pub(super) fn returned_copy_call(
        &mut self,
        qualname: &str,
        call: &ast::ExprCall,
    ) -> Option<Fact> {
        let ids = self.fs.returned_copies.get(qualname)?.clone();
        self.eval_args(call);
        Some(Fact {
            kind: ValueKind::Tensor,
            sink_results: ids,
            ..Fact::default()
        })
    }

    /// A call of a function that returns an enlarged value: the callee's chain plus this call.
    pub(super) fn summary_call(&mut self, summary: &FunctionSummary, call: &ast::ExprCall) -> Fact {
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
            return Fact::tensor(summary.dtype, enlarged.shape).placed(summary.placement);
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
            placement: summary.placement,
            ..Fact::default()
        }
    }
}

/// The largest module-level function walked only for what it returns.
const LOCAL_HELPER_MAX_BYTES: usize = 4000;

/// What a helper returns, as seen by its callers in the same file: a tensor whose dtype or
/// placement every tensor return agrees on (a `return None` path does not count).
fn local_return(returns: &[Fact]) -> Option<Fact> {
    let tensors: Vec<&Fact> = returns
        .iter()
        .filter(|f| (!f.is_not_tensor() && f.kind != ValueKind::Unknown) || f.enlarged.is_some())
        .collect();
    if tensors.is_empty()
        || returns
            .iter()
            .any(|f| f.kind == ValueKind::Unknown && f.enlarged.is_none())
    {
        return None;
    }
    let joined = tensors
        .iter()
        .skip(1)
        .fold((*tensors[0]).clone(), |acc, f| acc.join(f));
    let fact = Fact::tensor(joined.dtype, None).placed(joined.placement);
    (fact.dtype.is_some() || fact.placement != Placement::Unknown).then_some(fact)
}

/// Analyzes a function body in a fresh scope; records a summary when it returns an enlarged value.
pub(super) fn analyze_function(
    fs: &mut FileState<'_>,
    def: &ast::StmtFunctionDef,
    class_name: Option<String>,
    summarize: bool,
) {
    // A function that names no enlarger and calls no summarized helper (nor one of this file
    // returning a copy) cannot hold a site or return an enlarged value (its parameters start
    // unknown): skip its walk.
    let body_text = fs.text.get(def.range.to_std_range()).unwrap_or("");
    // A small module-level helper is walked anyway, for what it returns.
    let local = class_name.is_none() && summarize;
    let calls_summarized =
        !fs.summaries.is_empty() && fs.summaries.short_names().any(|n| body_text.contains(n));
    // Its return only matters to callers later in this file (see `local_returns`).
    let small_helper = local
        && body_text.len() <= LOCAL_HELPER_MAX_BYTES
        && body_text.contains("return")
        && fs
            .text
            .get(def.range.end().to_usize()..)
            .is_some_and(|rest| rest.contains(&format!("{}(", def.name.id)));
    let calls_copy_helper = fs
        .returned_copies
        .keys()
        .any(|q| body_text.contains(q.rsplit('.').next().unwrap_or(q)));
    if !(crate::analysis::mentions_enlarger(body_text)
        || calls_summarized
        || small_helper
        || calls_copy_helper)
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
        let mut returns = walker.returns.take().unwrap_or_default();
        if !walker.dead {
            // Falling off the end returns None.
            returns.push(Fact::of_kind(ValueKind::NotTensor));
        }
        returns
    };
    let qualname = match &class_name {
        Some(class) => format!("{}.{class}.{}", fs.module.qualname, def.name.id),
        None => format!("{}.{}", fs.module.qualname, def.name.id),
    };
    if summarize {
        let copies: Vec<SiteId> = returns
            .iter()
            .flat_map(|f| f.sink_results.iter().copied())
            .filter(|id| {
                fs.sites
                    .get(*id as usize)
                    .is_some_and(|site| site.sink == SinkKind::Materialize)
            })
            .collect();
        if !copies.is_empty() {
            fs.returned_copies.insert(qualname.clone(), copies);
        }
    }
    if local && let Some(fact) = local_return(&returns) {
        fs.local_returns.insert(def.name.id.to_string(), fact);
    }
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
    // Where the value lives, when every return agrees.
    let placement = returns
        .iter()
        .filter(|f| f.enlarged.is_some() || f.kind == ValueKind::Tensor)
        .map(|f| f.placement)
        .reduce(|a, b| if a == b { a } else { Placement::Unknown })
        .unwrap_or_default();
    fs.summaries_out.push(FunctionSummary {
        qualname,
        is_method: class_name.is_some(),
        params,
        enlarged,
        dtype,
        placement,
    });
}
