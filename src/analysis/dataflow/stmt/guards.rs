//! What a branch test proves on each of its paths (`if m.dtype == torch.bool:`, the fall-through
//! of `if m.dtype != torch.bool: return`, `assert m.dtype is torch.bool`): facts the walk assumes
//! on that path only, and loses at the join with a path where they are not known.

use super::*;

use crate::analysis::dtype_infer::dtype_guard;
use crate::analysis::facts::DType;

/// The dtypes a test proves, by the key of the tested value (`m`, `self.mask`).
pub(super) type DtypeFacts = Vec<(String, DType)>;

impl Walker<'_, '_> {
    /// The dtypes `test` proves on its true path and on its false path.
    pub(super) fn dtype_guard_facts(&self, test: &Expr) -> (DtypeFacts, DtypeFacts) {
        let guard = dtype_guard(test, &|e| self.module_path(e));
        let keyed = |facts: Vec<(&Expr, DType)>| {
            facts
                .into_iter()
                .filter_map(|(tensor, dtype)| Some((dotted_key(tensor)?, dtype)))
                .collect()
        };
        (keyed(guard.when_true), keyed(guard.when_false))
    }

    /// The names a test proves to be Python numbers on its true path: `isinstance(x, Number)`
    /// with `numbers.Number` (or `Real`, `Integral`, `Complex`), `int`, `float`, `bool` or
    /// `complex`, alone or in a tuple of them. A tensor is none of those (`torch.Tensor` does not
    /// register with `numbers`), so in that branch `x == 0` compares a number.
    pub(super) fn number_guard(&self, test: &Expr) -> Option<String> {
        let Expr::Call(call) = test else {
            return None;
        };
        let Expr::Name(f) = &*call.func else {
            return None;
        };
        if f.id.as_str() != "isinstance" || self.env.contains_key("isinstance") {
            return None;
        }
        let [value, types] = &call.arguments.args[..] else {
            return None;
        };
        let is_number_type = |t: &Expr| match t {
            Expr::Name(n) if matches!(n.id.as_str(), "int" | "float" | "bool" | "complex") => {
                !self.env.contains_key(n.id.as_str())
            }
            _ => self.module_path(t).is_some_and(|p| {
                matches!(
                    p.as_str(),
                    "numbers.Number" | "numbers.Real" | "numbers.Integral" | "numbers.Complex"
                )
            }),
        };
        let numbers_only = match types {
            Expr::Tuple(t) => !t.elts.is_empty() && t.elts.iter().all(is_number_type),
            one => is_number_type(one),
        };
        if !numbers_only {
            return None;
        }
        dotted_key(value)
    }

    /// Binds the name a test proves to be a Python number (see [`Walker::number_guard`]).
    pub(super) fn assume_number(&mut self, test: &Expr) {
        if let Some(key) = self.number_guard(test) {
            self.env.insert(key, Fact::of_kind(ValueKind::Scalar));
        }
    }

    /// Assumes the dtypes a test proves on the path being walked: the tested value is a tensor
    /// of that dtype, whatever else is known of it.
    pub(super) fn assume_dtypes(&mut self, facts: &DtypeFacts) {
        for (key, dtype) in facts {
            let mut fact = self.env.get(key).cloned().unwrap_or_default();
            if fact.kind == ValueKind::Unknown {
                fact.kind = ValueKind::Tensor;
            }
            if fact.kind != ValueKind::Tensor {
                continue;
            }
            fact.dtype = Some(*dtype);
            fact.dtype_sym = None;
            self.env.insert(key.clone(), fact);
        }
    }

    /// `assert a.shape == b.shape` (also `a.size() == b.size()`, alone or in an `and`): past the
    /// assert, the two are arrays (not numbers) of one shape.
    pub(super) fn assume_same_shape(&mut self, test: &Expr) {
        match test {
            Expr::BoolOp(b) if b.op == ast::BoolOp::And => {
                for value in &b.values {
                    self.assume_same_shape(value);
                }
            }
            Expr::Compare(c)
                if c.ops.len() == 1 && c.ops[0] == ast::CmpOp::Eq && c.comparators.len() == 1 =>
            {
                if let (Some(a), Some(b)) = (shape_of(&c.left), shape_of(&c.comparators[0]))
                    && a != b
                {
                    // Both have a `.shape`: arrays, not Python numbers.
                    for key in [&a, &b] {
                        let fact = self.env.entry_or(key.clone(), Fact::default);
                        if fact.kind == ValueKind::Unknown {
                            fact.kind = ValueKind::Tensor;
                        }
                    }
                    self.fs.same_shapes.insert((a.clone(), b.clone()));
                    self.fs.same_shapes.insert((b, a));
                }
            }
            _ => {}
        }
    }
}

/// The key of the tensor whose whole shape `e` reads: `x.shape`, `x.size()`.
fn shape_of(e: &Expr) -> Option<String> {
    crate::analysis::shape_infer::shape_source_expr(e).and_then(dotted_key)
}
