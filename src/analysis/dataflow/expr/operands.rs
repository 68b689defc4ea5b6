//! An operator whose other operand lacks the dims an enlargement grew (`mask & ~causal` over
//! heads, or two expands over the same dims): the op could run on the small sources and be
//! expanded after, so it is a site of the enlarged operand.

use super::*;

impl Walker<'_, '_> {
    /// `mask & ~causal` where `mask` was expanded over heads from `[b, 1, q, k]` and `causal` is
    /// `[1, 1, q, k]`: the other operand lacks a grown dim, so the op could run on the small
    /// source and be expanded after. A site of the enlarged operand (the other is not enlarged).
    pub(super) fn op_before_enlarging(
        &mut self,
        left: &Fact,
        right: &Fact,
        range: TextRange,
    ) -> Option<Fact> {
        self.note_full_operand(left, right);
        let (enlarged_side, other) = match (&left.enlarged, &right.enlarged) {
            (Some(_), None) => (left, right),
            (None, Some(_)) => (right, left),
            (Some(_), Some(_)) => return self.op_before_both_enlarged(left, right, range),
            _ => return None,
        };
        let enlarged = enlarged_side.enlarged.as_ref()?;
        let last = enlarged.steps.last()?;
        if last.role != StepRole::Enlarge
            || !matches!(other.kind, ValueKind::Tensor | ValueKind::Unknown)
        {
            return None;
        }
        let key = (last.range.start().to_u32(), last.range.end().to_u32());
        let source = self.fs.enlarge_sources.get(&key)?;
        let (target, other_shape) = (enlarged.shape.as_ref()?, other.shape.as_ref()?);
        if !operand_lacks_grown_dims(source, target, other_shape) {
            return None;
        }
        let dtype = (enlarged_side.dtype == other.dtype)
            .then_some(enlarged_side.dtype)
            .flatten();
        let recv = enlarged_side.clone();
        self.sink_receiver = None;
        let mut result = self.sink(&recv, SinkKind::Elementwise, range, range, dtype);
        self.keep_dtype_name_if_shared(&mut result, enlarged_side, other);
        self.mark_small_tensor_operand(&result);
        Some(result)
    }

    /// `a.expand(b, h, q, k) & c.expand(b, h, q, k)` where neither source has a grown dim (both
    /// `[b, 1, 1, k]`-like over heads and queries): the op could run on the two small sources,
    /// broadcast against each other, and be expanded after. Only for two views expanded to the
    /// same known shape, straight from their enlargers; a site of the left operand.
    pub(super) fn op_before_both_enlarged(
        &mut self,
        left: &Fact,
        right: &Fact,
        range: TextRange,
    ) -> Option<Fact> {
        let (l, r) = (left.enlarged.as_ref()?, right.enlarged.as_ref()?);
        let mut sources = Vec::with_capacity(2);
        for e in [l, r] {
            let last = e.steps.last()?;
            if e.kind != EnlargeKind::View || e.may || last.role != StepRole::Enlarge {
                return None;
            }
            let key = (last.range.start().to_u32(), last.range.end().to_u32());
            sources.push(self.fs.enlarge_sources.get(&key)?);
        }
        let target = l.shape.as_ref()?;
        if r.shape.as_ref() != Some(target)
            || !operand_lacks_grown_dims(sources[0], target, sources[1])
        {
            return None;
        }
        let dtype = (left.dtype == right.dtype).then_some(left.dtype).flatten();
        let recv = left.clone();
        self.sink_receiver = None;
        let mut result = self.sink(&recv, SinkKind::Elementwise, range, range, dtype);
        self.keep_dtype_name_if_shared(&mut result, left, right);
        for id in &result.sink_results {
            if let Some(site) = self.fs.sites.get_mut(*id as usize) {
                site.small_tensor_operand = true;
                site.other_operand_enlarged = true;
            }
        }
        Some(result)
    }

    /// The result of an op between two tensors has the dtype both share; when only the enlarged
    /// operand's dtype name is known (`causal` made with `dtype=h.dtype`, plus a padding mask of
    /// unknown dtype), type promotion may give another (float16 + float32 is float32), so the
    /// result does not keep that name: a later `.to(h.dtype)` is then a conversion, not a no-op.
    fn keep_dtype_name_if_shared(&mut self, result: &mut Fact, enlarged: &Fact, other: &Fact) {
        if result.dtype.is_none() && other.dtype_sym != enlarged.dtype_sym {
            result.dtype_sym = None;
            self.fs
                .promoted_results
                .extend(result.sink_results.iter().copied());
        }
    }

    /// Whether `operand` is the tensor an enlargement of `enlarged` took its size from
    /// (`c = coef.expand_as(eps)` then `c * eps`, `m.expand(x.shape) + x`), or one an `assert
    /// x.shape == eps.shape` gave that tensor's shape: it has the full
    /// enlarged shape, so the op writes a full-size result whichever operand is expanded, and
    /// doing it before the enlargement saves nothing.
    pub(in crate::analysis::dataflow) fn is_full_size_operand(
        &self,
        operand: &Expr,
        enlarged: &Fact,
    ) -> bool {
        let (Some(e), Some(key)) = (&enlarged.enlarged, dotted_key(operand)) else {
            return false;
        };
        e.steps.iter().any(|step| {
            step.role == StepRole::Enlarge
                && self
                    .fs
                    .expand_targets
                    .get(&(step.range.start().to_u32(), step.range.end().to_u32()))
                    .is_some_and(|target| {
                        *target == key
                            || self.fs.same_shapes.contains(&(target.clone(), key.clone()))
                    })
        })
    }
}
