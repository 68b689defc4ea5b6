//! The facts of container displays (tuples, lists, dicts): what escapes with them, the dtype
//! their elements share, where their tensors live.

use crate::analysis::facts::{Dim, Fact, Placement, Shape, ValueKind};

/// A container (tuple, list, dict, output object) of values: not a tensor, but the sinks whose
/// results it holds escape with it.
pub(in crate::analysis::dataflow) fn container_of(facts: &[Fact]) -> Fact {
    let mut out = Fact::of_kind(ValueKind::NotTensor);
    for fact in facts {
        for id in &fact.sink_results {
            if !out.sink_results.contains(id) {
                out.sink_results.push(*id);
            }
        }
    }
    out
}

/// A tuple or list display: a container (see [`container_of`]) that also carries the dtype all
/// its elements share, when they are tensors of one dtype (known, or by name), and their common
/// shape ([`common_shape`]), for what `torch.cat`/`torch.stack` of it makes.
pub(super) fn sequence_of(facts: &[Fact]) -> Fact {
    let mut out = container_of(facts);
    out.placement = elements_placement(facts);
    let Some(first) = facts.first() else {
        return out;
    };
    let tensors = facts.iter().all(|f| f.kind == ValueKind::Tensor);
    if tensors && first.dtype.is_some() && facts.iter().all(|f| f.dtype == first.dtype) {
        out.dtype = first.dtype;
    } else if tensors
        && first.dtype_sym.is_some()
        && facts
            .iter()
            .all(|f| f.dtype.is_none() && f.dtype_sym == first.dtype_sym)
    {
        out.dtype_sym = first.dtype_sym.clone();
    }
    if tensors {
        out.shape = common_shape(facts);
    }
    out
}

/// The shape tensors joined by `torch.cat` share: torch requires one rank and equal sizes on every
/// dim but the joined one, so a size any element states holds for all; a dim two elements state
/// differently (the joined dim) is unknown. `torch.cat([torch.zeros(B, H, 1, 1), cumsum], -2)`
/// keeps the last dim of 1. `None` when no element's shape is known or the ranks differ.
fn common_shape(facts: &[Fact]) -> Option<Shape> {
    let mut shapes = facts.iter().filter_map(|f| f.shape.as_ref());
    let mut dims = shapes.next()?.0.clone();
    for shape in shapes {
        if shape.rank() != dims.len() {
            return None;
        }
        for (dim, other) in dims.iter_mut().zip(&shape.0) {
            match (&*dim, other) {
                (Dim::Unknown, known) => *dim = known.clone(),
                (Dim::Size(a), Dim::Size(b)) if a != b => *dim = Dim::Unknown,
                _ => {}
            }
        }
    }
    Some(Shape(dims))
}

/// Where the tensors of a list or tuple display live: nowhere yet when it is empty (those
/// appended later say), their common place when every element is a tensor.
pub(in crate::analysis::dataflow) fn elements_placement(facts: &[Fact]) -> Placement {
    if facts.iter().any(|f| f.kind != ValueKind::Tensor) {
        return Placement::Unknown;
    }
    facts
        .iter()
        .map(|f| f.placement)
        .reduce(Placement::combine)
        .unwrap_or(Placement::Nowhere)
}
