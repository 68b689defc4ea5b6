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
}
