//! Consumers that read a tensor without writing it and accept a stride-0 input (OOM121: a
//! `repeat` of size-1 dims read only by them could be an `expand`). Taken from what torch says an
//! op does (the op table's pointwise ops broadcast every tensor operand), plus `gather` and
//! `take_along_dim`, whose input and index torch checks by size only, `masked_select`, whose
//! input and mask torch documents as broadcastable (the selected elements, in the broadcast
//! shape's order, are the same for a view and its copy), and the joins (`cat`, `stack`), which
//! copy their inputs whatever their strides.

use crate::analysis::facts::{Fact, ValueKind};
use crate::analysis::op_table::{self, OpKind};
use crate::source::ast::Expr;

use super::expr::UseCtx;

/// See [`op_table::OpInfo::broadcasts_operands`].
fn broadcasts_operands(op: Option<&op_table::OpInfo>) -> bool {
    op.is_some_and(op_table::OpInfo::broadcasts_operands)
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

/// Views that only reorder a tensor's dims or add a unit dim (`permute`, `transpose`, `.T`,
/// `unsqueeze`): applied to an `expand` view they give a stride-0 view of the same values, so the
/// read that counts is how their result is read (it carries the copy along).
const REORDERING_VIEWS: &[&str] = &[
    "permute",
    "transpose",
    "swapaxes",
    "swapdims",
    "movedim",
    "moveaxis",
    "t",
    "unsqueeze",
];

/// The attribute spellings of [`REORDERING_VIEWS`].
const REORDERING_ATTRIBUTES: &[&str] = &["T", "mT", "H", "mH"];

/// How an attribute read (`x.shape`, `x.T`) reads its base.
pub(super) fn attribute_ctx(attr: &str) -> UseCtx {
    if SIZE_READS.contains(&attr) || REORDERING_ATTRIBUTES.contains(&attr) {
        UseCtx::Bind
    } else {
        UseCtx::Other
    }
}

/// Whether a method maps each element of its receiver on its own, with no other tensor operand:
/// a pointwise unary op of the op table (`sigmoid`, `exp`, not the in-place `sigmoid_`) or a
/// dtype or device conversion (the table's copies other than the layout copies `clone`,
/// `contiguous` and `pin_memory`, which an author may write for the layout itself). Such a map
/// commutes with a repeat (`f(x.repeat(r)) == f(x).repeat(r)`), so a repeated copy read by it is
/// read as its result is read (OOM121: `z.repeat_interleave(m, 0)` then `attn + z.float()`).
pub(super) fn maps_elementwise(name: &str) -> bool {
    op_table::method(name).is_some_and(|op| match op.kind {
        OpKind::PointwiseUnary => !name.ends_with('_'),
        OpKind::Copy => !matches!(name, "clone" | "contiguous" | "pin_memory"),
        _ => false,
    })
}

/// How a method reads its receiver (and positional tensor arguments): no read for a size
/// (`x.size(-1)`) or a reordering view (its result is read instead), `Map` for an elementwise
/// map ([`maps_elementwise`]: a read, whose result carries a repeated copy on), `Broadcast` for a
/// pointwise method of the op table (`y.hypot(x)`, `x.mul(w)`), for `gather` /
/// `take_along_dim` (the receiver is the input), for `masked_select` (receiver and mask) and for
/// `bernoulli` (see [`ELEMENTWISE_SAMPLERS`]).
pub(super) fn method_ctx(name: &str) -> UseCtx {
    if SIZE_READS.contains(&name) || REORDERING_VIEWS.contains(&name) {
        return UseCtx::Bind;
    }
    if maps_elementwise(name) {
        return UseCtx::Map;
    }
    if matches!(
        name,
        "gather" | "take_along_dim" | "masked_select" | "bernoulli"
    ) || broadcasts_operands(op_table::method(name))
    {
        UseCtx::Broadcast
    } else {
        UseCtx::Other
    }
}

/// Samplers that draw each output element from the input element at its position
/// (`torch.bernoulli(p)`, `torch.poisson(rates)`): a stride-0 input gives the same samples under
/// the same seed, without the copy (`scripts/prove_recall.py`). Not `torch.normal`, whose CPU
/// kernel allocates more for an expanded `std` than for its copy.
const ELEMENTWISE_SAMPLERS: &[&str] = &["bernoulli", "poisson"];

/// How a `torch.*` function reads its positional tensor arguments: `Broadcast` for a pointwise
/// function of the op table (`torch.special.chebyshev_polynomial_t(x, n)`, `torch.hypot`), for
/// `torch.masked_select(x, mask)` and for the [`ELEMENTWISE_SAMPLERS`].
pub(super) fn function_ctx(module: &str, name: &str) -> UseCtx {
    if broadcasts_operands(op_table::function(module, name))
        || (module == "torch" && (name == "masked_select" || ELEMENTWISE_SAMPLERS.contains(&name)))
    {
        UseCtx::Broadcast
    } else {
        UseCtx::Other
    }
}

/// How a subscript reads its index: a tensor used whole as the index of a tensor (`x[ids]`,
/// `preds[mask] = v`) is read through its strides, so a stride-0 mask or index selects the same
/// elements as its copy (`Index`). `store`: the subscript is written, which needs the base known
/// to be a tensor (a container may be keyed by anything); a read only needs it not known to be
/// something else.
pub(super) fn index_ctx(base: &Fact, slice: &Expr, store: bool) -> UseCtx {
    let tensor_base = if store {
        base.kind == ValueKind::Tensor
    } else {
        !base.is_not_tensor()
    };
    if tensor_base && !matches!(slice, Expr::Tuple(_) | Expr::Slice(_)) {
        UseCtx::Index
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
