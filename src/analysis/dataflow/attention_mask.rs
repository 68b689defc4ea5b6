//! `F.scaled_dot_product_attention(q, k, v, attn_mask=m)`: torch broadcasts `attn_mask` against
//! the attention scores, and turns a bool mask into an additive float mask (`where(m, 0, -inf)`)
//! at the size it is given. An expanded bool mask is therefore converted at its full
//! `[B, H, Q, K]` size inside the call (measured with torch 2.15: the `where` allocates the
//! expanded shape; the unexpanded mask allocates nothing of that size), and a repeated mask is
//! read only as a broadcast.

use crate::analysis::SinkKind;
use crate::analysis::facts::{DType, Fact};
use crate::analysis::shape_infer::keyword;
use crate::source::Ranged;
use crate::source::ast::{self, Expr};

use super::expr::UseCtx;
use super::stmt::Walker;

/// Where `attn_mask` sits among the positional arguments (`query, key, value, attn_mask`).
const MASK_POSITION: usize = 3;

impl Walker<'_, '_> {
    /// The call's result (the attention output, in the query's dtype and placement); an expanded
    /// mask of bool or unknown dtype is a site (a bool one surely converted, one of unknown dtype
    /// may be).
    pub(super) fn attention_call(&mut self, call: &ast::ExprCall) -> Fact {
        // After a starred argument (`*qkv`) the positions are not known: only the keyword.
        let starred = call
            .arguments
            .args
            .iter()
            .any(|a| matches!(a, Expr::Starred(_)));
        let mask_expr: Option<&Expr> = call
            .arguments
            .args
            .get(MASK_POSITION)
            .filter(|_| !starred)
            .or_else(|| keyword(call, "attn_mask"));
        let mut query = None;
        for (i, arg) in call.arguments.args.iter().enumerate() {
            if i == MASK_POSITION && !starred {
                continue;
            }
            let fact = self.eval(arg);
            if i == 0 {
                query = Some(fact);
            }
        }
        for kw in &call.arguments.keywords {
            if kw.arg.as_ref().is_some_and(|a| a.as_str() == "attn_mask") {
                continue;
            }
            let fact = self.eval(&kw.value);
            if kw.arg.as_ref().is_some_and(|a| a.as_str() == "query") {
                query = Some(fact);
            }
        }
        if let Some(mask_expr) = mask_expr {
            let mask = self.eval_with(mask_expr, UseCtx::Broadcast);
            // A mask in the query's own dtype is additive: the call needs a floating query.
            let query_dtype = query.as_ref().and_then(|q| q.dtype_sym.as_ref());
            let converts = match mask.dtype {
                Some(DType::Bool) => true,
                Some(_) => false,
                None => mask.dtype_sym.is_none() || mask.dtype_sym.as_ref() != query_dtype,
            };
            if converts && mask.enlarged.is_some() {
                self.sink_receiver = None;
                self.sink(
                    &mask,
                    SinkKind::Cast {
                        target: None,
                        certain: false,
                        in_reduction: false,
                        inside: Some("scaled_dot_product_attention"),
                    },
                    mask_expr.range(),
                    mask_expr.range(),
                    query.as_ref().and_then(|q| q.dtype),
                );
            }
        }
        match query {
            Some(q) if !q.is_not_tensor() => Fact::tensor(q.dtype, None).placed_like(&q),
            _ => Fact::tensor(None, None),
        }
    }
}
