//! A `repeat` / `repeat_interleave` of the leading dim when its size is not known (a parameter's
//! `torch.repeat_interleave(image_embed, n, dim=0)`): when every reader broadcasts, and one of
//! them combines it with a tensor that already has the full shape, the copy is needless if that
//! dim is 1, and OOM121 says so as a "may" naming the condition. A dim known to be of another
//! size (a number, a named size) is no candidate. Only the leading dim: a batch of one is data
//! (one image, one prompt), while an inner dim of 1 is made by the code (`unsqueeze`, `None`
//! indexing, a view), where the analysis sees it and needs no "may".

use crate::source::Ranged;
use crate::source::ast::{self, Expr};

use crate::analysis::facts::{Dim, Fact, Shape, SymExpr, ValueKind};
use crate::analysis::shape_infer::{SizeArg, Sizes, keyword};

use super::enlarge::{interleave_count_dim, interleave_stretch};
use super::stmt::Walker;

/// The `expand` arguments if the repeated dims are 1, and the condition as the message says it
/// (`dim 0 of `image_embed` is 1`).
pub(super) struct MayUnit {
    pub expand_args: String,
    pub condition: String,
}

/// Whether a source dim may be 1: its size is not known here.
fn may_be_one(shape: Option<&Shape>, i: usize) -> bool {
    match shape {
        None => true,
        Some(s) => matches!(s.0.get(i), Some(Dim::Unknown)),
    }
}

/// A count written as a number is a fixed tiling factor (`repeat(1, 2)` of a half-width table):
/// the source dim is then rarely 1. A count that is a size (`tokens.shape[0]`, `batch`) is the
/// target extent a size-1 dim is stretched to.
fn is_size_count(count: &SymExpr) -> bool {
    !matches!(count, SymExpr::Num(_))
}

fn condition(dims: &[usize], recv_code: &str) -> String {
    let list: Vec<String> = dims.iter().map(ToString::to_string).collect();
    match list.as_slice() {
        [one] => format!("dim {one} of `{recv_code}` is 1"),
        many => format!("dims {} of `{recv_code}` are 1", many.join(", ")),
    }
}

/// A tensor operand of data: neither a number, not a tensor, an enlarged view nor a repeat that
/// `expand` could replace. Combined with a copy (`src + dense`) or joined with it
/// (`torch.cat([x, g.repeat(1, n, 1)])`), it has the copy's full extent.
pub(super) fn holds_data(fact: &Fact) -> bool {
    fact.enlarged.is_none()
        && fact.repeat_candidate.is_none()
        && fact.kind != ValueKind::Scalar
        && !fact.is_not_tensor()
}

/// `x.repeat(n, 1, 1, 1)` with the size of dim 0 unknown. The rank is taken to be the number of
/// counts (as `repeat_as_expand_args` does), and a known shape must have that rank.
pub(super) fn repeat(
    sizes: &Sizes,
    call: &ast::ExprCall,
    recv: &Fact,
    recv_code: &str,
) -> Option<MayUnit> {
    let Sizes::Dims(counts) = sizes else {
        return None;
    };
    // One count held in a name may be a whole shape (`repeat(repeats)`), and `axis=` is numpy's
    // `repeat` (an interleave of an array): neither says which dim grows.
    if counts.len() < 2 || keyword(call, "axis").is_some() {
        return None;
    }
    if recv
        .shape
        .as_ref()
        .is_some_and(|s| s.rank() != counts.len())
    {
        return None;
    }
    let mut args = Vec::with_capacity(counts.len());
    let mut dims = Vec::new();
    for (i, c) in counts.iter().enumerate() {
        let SizeArg::Size(count) = c else {
            return None;
        };
        if *count == SymExpr::Num(1) {
            args.push("-1".to_string());
        } else if is_size_count(count)
            && (recv.unit_dims.contains(&(i as i64)) || may_be_one(recv.shape.as_ref(), i))
        {
            args.push(count.to_string());
            if !recv.unit_dims.contains(&(i as i64)) {
                dims.push(i);
            }
        } else {
            return None;
        }
    }
    if dims != [0] {
        return None;
    }
    Some(MayUnit {
        expand_args: args.join(", "),
        condition: condition(&dims, recv_code),
    })
}

/// `torch.repeat_interleave(x, n, dim=0)` / `x.repeat_interleave(n, dim=0)` with the size of
/// `dim` unknown: with a size-1 dim, interleaving is stretching it.
pub(super) fn repeat_interleave(
    args: &[&Expr],
    arg_facts: &[Fact],
    call: &ast::ExprCall,
    recv: &Fact,
    recv_code: &str,
    text: &str,
) -> Option<MayUnit> {
    let (repeats, count, dim) = interleave_count_dim(args, arg_facts, call, text)?;
    // A count written as a number is a tiling factor; `axis=` is numpy's `repeat`.
    if matches!(repeats, Expr::NumberLiteral(_)) || keyword(call, "axis").is_some() {
        return None;
    }
    let (d, expand_args) = interleave_stretch(recv.shape.as_ref(), dim, &count, recv_code)?;
    (d == 0 && may_be_one(recv.shape.as_ref(), 0)).then(|| MayUnit {
        expand_args,
        condition: condition(&[0], recv_code),
    })
}

impl Walker<'_, '_> {
    /// A binary op reading a "may" repeat with a tensor that is neither a number, enlarged, nor
    /// another such repeat: that operand already has the full shape, so the op broadcasts the
    /// repeat's source as well (`src + dense_prompt`). Two copies combined (`repeated - loc`
    /// where both are repeats) say nothing about either.
    pub(super) fn note_full_operand(&mut self, left: &Fact, right: &Fact) {
        for (side, other) in [(left, right), (right, left)] {
            if holds_data(other)
                && let Some(c) = side.repeat_candidate
                && let Some(candidate) = self.fs.repeats.get_mut(c as usize)
            {
                candidate.full_operand = true;
            }
        }
    }

    /// `self.<attr>` that the class being walked registers as a buffer (`register_buffer` takes
    /// only tensors) or stores a tensor on, in a method walked before this one.
    fn class_stores_tensor(&self, expr: &Expr) -> bool {
        let Expr::Attribute(a) = expr else {
            return false;
        };
        if !matches!(&*a.value, Expr::Name(n) if n.id.as_str() == "self") {
            return false;
        }
        let attr = a.attr.id.as_str();
        self.fs.buffer_attrs.contains(attr)
            || self.fs.attr_writes.as_ref().is_some_and(|writes| {
                writes
                    .get(attr)
                    .is_some_and(|facts| facts.iter().any(|f| f.kind == ValueKind::Tensor))
            })
    }

    /// `r // self.beam_size` where `r` is a repeat candidate and the other operand is an attribute
    /// of unknown kind with no shape: if it is a number, the op writes the full shape too, so
    /// replacing the repeat by `expand` saves only the copy, and the op itself belongs before the
    /// enlargement. Noted on the candidate, so its finding says so (a "may": the operand may also
    /// be a tensor that broadcasts).
    pub(super) fn note_number_operand(&mut self, b: &ast::ExprBinOp, left: &Fact, right: &Fact) {
        for (side, other, other_expr) in [(left, right, &*b.right), (right, left, &*b.left)] {
            let Some(c) = side.repeat_candidate else {
                continue;
            };
            let may_be_number = other.kind == ValueKind::Unknown
                && other.shape.is_none()
                && other.enlarged.is_none()
                && other.repeat_candidate.is_none()
                && other.dtype.is_none()
                // An attribute (`self.beam_size`): a parameter or local name combined with a
                // tensor is most often a tensor itself, while an attribute that the class's
                // `__init__` does not make a tensor is as often a setting.
                && matches!(other_expr, Expr::Attribute(_));
            if !may_be_number || self.class_stores_tensor(other_expr) {
                continue;
            }
            let operand = self.fs.text[other_expr.range()].to_string();
            let op_text = if std::ptr::eq(other_expr, &*b.right) {
                format!("{} {operand}", b.op.as_str())
            } else {
                format!("{operand} {}", b.op.as_str())
            };
            if let Some(candidate) = self.fs.repeats.get_mut(c as usize)
                && candidate.number_operand.is_none()
            {
                candidate.number_operand =
                    Some(crate::analysis::NumberOperand { operand, op_text });
            }
        }
    }
}
