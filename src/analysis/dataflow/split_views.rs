//! The parts a tensor is split into (`lower, upper = x.unbind(-1)`, `a, b = x.chunk(2, dim=1)`):
//! torch returns views of the receiver's memory, so a write through a part (`lower.data[m] = v`,
//! `a[i] = 0`) writes the receiver in place, and a copy made for it is needed.

use crate::analysis::facts::{Fact, ValueKind};
use crate::source::ast::{self, Expr};

use super::stmt::Walker;

/// Methods whose result is a sequence of views of the receiver.
const SPLITS: &[&str] = &[
    "unbind",
    "chunk",
    "split",
    "split_with_sizes",
    "tensor_split",
    "hsplit",
    "vsplit",
    "dsplit",
];

impl Walker<'_, '_> {
    /// The fact of each part of `x.unbind(...)` (and the other splits) unpacked into names: a
    /// tensor that shares the receiver's full-size results, so that a write through it counts as
    /// a write of them. Unknown parts for an enlarged view (judged as the view is) or a receiver
    /// that is not known to be a tensor (`line.split(",")`). None for another call.
    pub(super) fn split_parts(&mut self, call: &ast::ExprCall) -> Option<Fact> {
        let Expr::Attribute(a) = &*call.func else {
            return None;
        };
        if !SPLITS.contains(&a.attr.id.as_str()) || self.module_path(&a.value).is_some() {
            return None;
        }
        let recv = self.eval(&a.value);
        self.eval_args(call);
        let tensor = recv.kind == ValueKind::Tensor || !recv.sink_results.is_empty();
        if !tensor || recv.enlarged.is_some() {
            return Some(Fact::unknown());
        }
        let mut part = Fact::tensor(recv.dtype, None).placed_like(&recv);
        part.sink_results = recv.sink_results.clone();
        Some(part)
    }
}
