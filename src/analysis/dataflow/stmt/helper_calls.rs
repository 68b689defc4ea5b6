//! Calls of project helpers that return a `repeat` (OOM121 across functions): where a walk loses
//! sight of such a call's result (stored, captured by a closure, shared through `global`), the
//! call counts as read in a way that may need the copy.

use super::*;

impl Walker<'_, '_> {
    /// The helper calls whose result `fact` may be are read where this walk does not see.
    pub(super) fn helper_calls_escape(&mut self, fact: &Fact) {
        for id in &fact.helper_calls {
            if let Some(call) = self.fs.helper_calls.get_mut(*id as usize) {
                call.other_use = true;
            }
        }
    }

    /// The function being walked declares `global` or `nonlocal` names: its names may be read
    /// elsewhere.
    pub(super) fn shares_names(&self) -> bool {
        let text = self
            .fs
            .text
            .get(self.scope_range.to_std_range())
            .unwrap_or("");
        text.contains("global ") || text.contains("nonlocal ")
    }

    /// A nested function or class in `range` may read the local names it mentions later (a
    /// closure): the helper results they hold escape this walk.
    pub(super) fn helper_results_captured(&mut self, range: TextRange) {
        let text = self.fs.text.get(range.to_std_range()).unwrap_or("");
        let captured: Vec<Fact> = self
            .env
            .iter()
            .filter(|(name, fact)| {
                !fact.helper_calls.is_empty()
                    && crate::analysis::dataflow::word_offsets(
                        text,
                        name.split(['.', '[']).next().unwrap_or(name),
                    )
                    .next()
                    .is_some()
            })
            .map(|(_, fact)| fact.clone())
            .collect();
        for fact in captured {
            self.helper_calls_escape(&fact);
        }
    }
}
