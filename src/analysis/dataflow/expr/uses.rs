//! How a value is read, recorded on the copies it comes from: a `repeat` read only by
//! broadcasting consumers or joins is an OOM121 candidate ([`UseCtx`]); a helper's returned
//! repeat is judged by how its callers read it.

use super::*;

impl Walker<'_, '_> {
    /// An element of a list or tuple display read in `ctx`: the elements of a joined sequence
    /// are joined (`torch.cat([a, b])`); any other container's elements are plain reads.
    pub(super) fn eval_element_in(&mut self, element: &Expr, ctx: UseCtx) -> Fact {
        match ctx {
            UseCtx::Concat => self.eval_with(element, UseCtx::Concat),
            _ => self.eval(element),
        }
    }

    /// The inputs of a join (`ctx` is `Concat`) when none of them is a tensor of data (each is
    /// a copy, a view or not a tensor): the join builds a table from sizes alone (a coordinate
    /// grid, a position table: `torch.cat([xx.repeat(B, 1, H, 1), yy.repeat(B, 1, 1, W)], 1)`),
    /// which is not worth its own finding. A data input (`torch.cat([x, g.repeat(1, n, 1)])`)
    /// is what ties the copy's extent to an activation's.
    pub(super) fn note_join_of_copies(&mut self, facts: &[Fact], ctx: UseCtx) {
        if ctx != UseCtx::Concat {
            return;
        }
        // A helper's returned repeat is a copy too.
        let data_input = facts
            .iter()
            .any(|f| super::super::may_unit::holds_data(f) && f.helper_calls.is_empty());
        if data_input {
            return;
        }
        for fact in facts {
            if let Some(c) = fact.repeat_candidate
                && let Some(candidate) = self.fs.repeats.get_mut(c as usize)
            {
                candidate.table_join = true;
            }
            for id in &fact.helper_calls {
                if let Some(call) = self.fs.helper_calls.get_mut(*id as usize) {
                    call.other_use = true;
                }
            }
        }
    }

    /// The result of an elementwise map (`z.float()`, `torch.sigmoid(z)`) of a repeated copy
    /// `copy`: it carries the copy on, so its reads (in `ctx`, the map's own context) are the
    /// copy's; `through` is the map as the finding names it.
    pub(in crate::analysis::dataflow) fn carry_mapped_copy(
        &mut self,
        result: &mut Fact,
        copy: Option<u32>,
        through: impl FnOnce() -> String,
        ctx: UseCtx,
    ) {
        let Some(c) = copy else {
            return;
        };
        if let Some(candidate) = self.fs.repeats.get_mut(c as usize) {
            candidate.read_through.get_or_insert_with(through);
        }
        result.repeat_candidate = Some(c);
        self.record_use(result, ctx);
    }

    pub(in crate::analysis::dataflow) fn record_use(&mut self, fact: &Fact, ctx: UseCtx) {
        if let Some(c) = fact.repeat_candidate
            && let Some(candidate) = self.fs.repeats.get_mut(c as usize)
        {
            match ctx {
                UseCtx::Broadcast => {
                    candidate.broadcast_use = true;
                    candidate.pointwise_use = true;
                }
                UseCtx::Concat => {
                    candidate.broadcast_use = true;
                    candidate.concat_use = true;
                }
                UseCtx::Index => {
                    candidate.broadcast_use = true;
                    candidate.index_use = true;
                }
                UseCtx::Other => candidate.other_use = true,
                UseCtx::Return => candidate.returned = true,
                // The map's result carries the copy on (see `UseCtx::Map`).
                UseCtx::Bind | UseCtx::Map => {}
            }
        }
        for id in &fact.helper_calls {
            if let Some(call) = self.fs.helper_calls.get_mut(*id as usize) {
                match ctx {
                    UseCtx::Broadcast | UseCtx::Concat | UseCtx::Index => call.broadcast_use = true,
                    // Returned again: this function's own callers are not followed.
                    UseCtx::Other | UseCtx::Return | UseCtx::Map => call.other_use = true,
                    UseCtx::Bind => {}
                }
            }
        }
    }
}
