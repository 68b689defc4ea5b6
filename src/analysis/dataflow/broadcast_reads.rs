//! Consumers that read a tensor without writing it and accept a stride-0 input (OOM121: a
//! `repeat` of size-1 dims read only by them could be an `expand`). Taken from what torch says an
//! op does (the op table's pointwise ops broadcast every tensor operand), plus `gather` and
//! `take_along_dim`, whose input and index torch checks by size only, and the joins (`cat`,
//! `stack`), which copy their inputs whatever their strides.

use crate::analysis::op_table::{self, OpKind};

use super::expr::UseCtx;

/// A pointwise op with tensor operands (`hypot`, `chebyshev_polynomial_t`, `masked_fill`,
/// `lerp`): each operand broadcasts against the others, an expanded one as well as a copy.
/// In-place variants have their own kind in the table and never count.
fn broadcasts_operands(op: Option<&op_table::OpInfo>) -> bool {
    op.is_some_and(|o| o.kind == OpKind::PointwiseBinary)
}

/// Methods and attributes that read metadata a stride-0 view shares with the copy (not
/// `stride()`, which tells them apart): no read of the values at all.
const SIZE_READS: &[&str] = &[
    "size",
    "dim",
    "numel",
    "nelement",
    "element_size",
    "shape",
    "ndim",
    "dtype",
    "device",
    "is_cuda",
    "requires_grad",
];

/// How an attribute read (`x.shape`, `x.T`) reads its base.
pub(super) fn attribute_ctx(attr: &str) -> UseCtx {
    if SIZE_READS.contains(&attr) {
        UseCtx::Bind
    } else {
        UseCtx::Other
    }
}

/// How a method reads its receiver (and positional tensor arguments): no read for a size
/// (`x.size(-1)`), `Broadcast` for a
/// pointwise method of the op table (`y.hypot(x)`, `x.mul(w)`) and for `gather` /
/// `take_along_dim` (the receiver is the input).
pub(super) fn method_ctx(name: &str) -> UseCtx {
    if SIZE_READS.contains(&name) {
        return UseCtx::Bind;
    }
    if matches!(name, "gather" | "take_along_dim") || broadcasts_operands(op_table::method(name)) {
        UseCtx::Broadcast
    } else {
        UseCtx::Other
    }
}

/// How a `torch.*` function reads its positional tensor arguments: `Broadcast` for a pointwise
/// function of the op table (`torch.special.chebyshev_polynomial_t(x, n)`, `torch.hypot`).
pub(super) fn function_ctx(module: &str, name: &str) -> UseCtx {
    if broadcasts_operands(op_table::function(module, name)) {
        UseCtx::Broadcast
    } else {
        UseCtx::Other
    }
}

/// The torch functions that join a sequence of tensors into a new one: each input is read
/// through its strides and copied once into the result, so a stride-0 view is read as a copy is.
const JOINS: &[&str] = &["cat", "concat", "concatenate", "stack", "hstack", "vstack"];

/// How a `torch.*` function reads its positional argument at `position`: the sequence a join
/// copies (`torch.cat([a, b], 1)`) has its elements read as `Concat`; the rest as
/// [`function_ctx`] says.
pub(super) fn function_arg_ctx(module: &str, name: &str, position: usize) -> UseCtx {
    if position == 0 && module == "torch" && JOINS.contains(&name) {
        UseCtx::Concat
    } else {
        function_ctx(module, name)
    }
}
