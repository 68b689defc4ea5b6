//! How a module-level function reads each parameter, for its callers (OOM121 across a call): a
//! parameter that the body only reads by broadcasting consumers (the input of `gather`, an
//! operand of `+`) or for its sizes, never rebinds, returns, stores or passes on, reads a
//! stride-0 view as well as a copy. A `repeat` of size-1 dims passed there (`apply_masks(
//! pos_embed.repeat(B, 1, 1), masks)`) could then be an `expand` in the caller, in any file.

use rustc_hash::FxHashMap;

use crate::source::TextRange;
use crate::source::ast::{self, Expr};

use crate::analysis::facts::Fact;

use super::expr::UseCtx;
use super::stmt::Walker;

/// The reads of one parameter seen in the body.
#[derive(Clone, Copy, Default)]
pub(super) struct ParamReads {
    broadcast: bool,
    other: bool,
}

/// The parameters tracked while a function is walked (None: not tracked).
pub(super) type Tracked = Option<FxHashMap<String, ParamReads>>;

/// Parameters to track for a module-level function: not with a nested function or a lambda
/// in the body (it may read a parameter where this walk does not look).
pub(super) fn tracked(def: &ast::StmtFunctionDef, body_text: &str, params: &[String]) -> Tracked {
    let nested = def
        .body
        .iter()
        .any(|s| matches!(s, ast::Stmt::FunctionDef(_) | ast::Stmt::ClassDef(_)))
        || body_text.contains("lambda")
        || body_text.matches("def ").count() > 1;
    if nested || params.is_empty() {
        return None;
    }
    Some(
        params
            .iter()
            .map(|p| (p.clone(), ParamReads::default()))
            .collect(),
    )
}

/// The parameters read only by broadcasting consumers (and at least once so).
pub(super) fn broadcast_only(tracked: &Tracked, params: &[String]) -> Vec<String> {
    let Some(map) = tracked else {
        return Vec::new();
    };
    params
        .iter()
        .filter(|p| map.get(*p).is_some_and(|r| r.broadcast && !r.other))
        .cloned()
        .collect()
}

impl Walker<'_, '_> {
    /// A read of `name` in context `ctx`, if it is a tracked parameter.
    fn note_param_read(&mut self, name: &str, ctx: UseCtx) {
        if let Some(r) = self.param_reads.as_mut().and_then(|m| m.get_mut(name)) {
            match ctx {
                UseCtx::Broadcast | UseCtx::Concat | UseCtx::Index => r.broadcast = true,
                UseCtx::Bind => {}
                UseCtx::Other | UseCtx::Return | UseCtx::Map => r.other = true,
            }
        }
    }

    /// A name read in an expression: noted if it is a tracked parameter, then looked up.
    pub(super) fn read_name(&mut self, name: &str, ctx: UseCtx, at: TextRange) -> Fact {
        self.note_param_read(name, ctx);
        self.lookup(name, ctx, at)
    }

    /// A tracked parameter rebound: later reads are not of the argument.
    pub(super) fn note_param_rebound(&mut self, name: &str) {
        if let Some(r) = self.param_reads.as_mut().and_then(|m| m.get_mut(name)) {
            r.other = true;
        }
    }

    /// Evaluates a call's arguments for a callee whose summary names the parameters it only
    /// broadcasts (`params`, `broadcast`): those arguments are read as broadcasts, the others
    /// as any other use.
    pub(super) fn eval_args_for(
        &mut self,
        call: &ast::ExprCall,
        params: &[String],
        broadcast: &[String],
    ) -> (Vec<Fact>, Vec<Fact>) {
        let ctx_of = |name: Option<&String>| match name {
            Some(n) if broadcast.contains(n) => UseCtx::Broadcast,
            _ => UseCtx::Other,
        };
        let starred = call
            .arguments
            .args
            .iter()
            .any(|a| matches!(a, Expr::Starred(_)));
        let positional = call
            .arguments
            .args
            .iter()
            .enumerate()
            .map(|(i, arg)| {
                let ctx = if starred {
                    UseCtx::Other
                } else {
                    ctx_of(params.get(i))
                };
                self.eval_with(arg, ctx)
            })
            .collect();
        let mut keywords = Vec::with_capacity(call.arguments.keywords.len());
        for kw in &call.arguments.keywords {
            let name = kw.arg.as_ref().map(|a| a.id.to_string());
            let fact = self.eval_with(&kw.value, ctx_of(name.as_ref()));
            if name.as_deref() == Some("out") {
                self.mark_in_place(&fact);
            }
            keywords.push(fact);
        }
        (positional, keywords)
    }
}
