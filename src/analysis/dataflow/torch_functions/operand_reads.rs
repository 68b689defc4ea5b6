//! Calls whose tensor arguments are read in a way of their own: `gather`'s input and index (read
//! as broadcast operands), `torch.broadcast_tensors` (each result a view of its argument).

use super::*;

impl Walker<'_, '_> {
    /// Evaluates the arguments of `gather`/`take_along_dim`, the index (positional at
    /// `index_at`, or `index=`) as a broadcast operand, and so the input (positional at
    /// `input_at`, or `input=`): gather reads a stride-0 input as it reads a copy. The positional
    /// arguments' facts.
    pub(in crate::analysis::dataflow) fn eval_index_args(
        &mut self,
        call: &ast::ExprCall,
        input_at: Option<usize>,
        index_at: usize,
    ) -> Vec<Fact> {
        let mut facts = Vec::new();
        for (i, arg) in call.arguments.args.iter().enumerate() {
            let fact = if i == index_at {
                self.eval_index(arg)
            } else if Some(i) == input_at {
                self.eval_with(arg, UseCtx::Broadcast)
            } else {
                self.eval(arg)
            };
            facts.push(fact);
        }
        for kw in &call.arguments.keywords {
            let key = kw.arg.as_ref().map(|a| a.id.as_str());
            if key == Some("index") {
                self.eval_index(&kw.value);
            } else if key == Some("input") && input_at.is_some() {
                self.eval_with(&kw.value, UseCtx::Broadcast);
            } else {
                self.eval(&kw.value);
            }
        }
        facts
    }

    /// A gather index is read like a broadcast operand when its repeat counts are sizes held in
    /// names (`ids.unsqueeze(-1).repeat(1, 1, dim)`: a row of hidden size per kept token) or read
    /// off a tensor (`ids_restore.unsqueeze(-1).repeat(1, 1, x.shape[2])`), unless it is a top-k
    /// selection repeated by one size (`topk_ind.unsqueeze(-1).repeat(1, 1, memory.shape[-1])`,
    /// `repeat(1, 1, self.config.d_model)`: a few rows); two or more such sizes (`repeat(1, 1, m.shape[-2],
    /// m.shape[-1])`: a whole map per selected row) count again. Literal counts (`repeat(1, 1, 4)`
    /// for box coordinates) never do. A device move of the index (`.to(x.device)`) is seen
    /// through: the expanded index moves as well.
    fn eval_index(&mut self, index: &Expr) -> Fact {
        if let Expr::Call(c) = index
            && let Expr::Attribute(a) = &*c.func
            && a.attr.id.as_str() == "to"
            && c.arguments.keywords.is_empty()
            && let [device] = &c.arguments.args[..]
            && names_device(device)
        {
            self.eval(device);
            return self.eval_index(&a.value);
        }
        let fact = self.eval_with(index, UseCtx::Broadcast);
        let from_topk = {
            let none = rustc_hash::FxHashSet::default();
            let names = self
                .fs
                .topk_names
                .get(&self.scope_range.start().to_u32())
                .unwrap_or(&none);
            super::super::topk::holds_topk(index, names)
        };
        let broadcast_counts = fact
            .repeat_candidate
            .and_then(|id| self.fs.repeats.get(id as usize))
            .is_some_and(|c| {
                let counts: Vec<&str> = c
                    .expand_args
                    .split(',')
                    .map(str::trim)
                    .filter(|a| *a != "-1")
                    .collect();
                let named = |a: &str| {
                    a.chars()
                        .next()
                        .is_some_and(|c| c.is_alphabetic() || c == '_')
                        && a.chars()
                            .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
                        && !a.contains("shape")
                };
                counts.iter().all(|a| named(a) || is_size_read(a))
                    && (counts.len() >= 2 || !from_topk)
            });
        if !broadcast_counts {
            self.record_use(&fact, UseCtx::Other);
        }
        fact
    }

    /// `torch.broadcast_tensors(a, b)` unpacked into `count` names: each result a broadcast view
    /// of its argument. Which of them grows is not known here, so each only *may* be enlarged.
    pub(in crate::analysis::dataflow) fn broadcast_tensors(
        &mut self,
        call: &ast::ExprCall,
        count: usize,
    ) -> Option<Vec<Fact>> {
        let args = &call.arguments.args;
        if self.module_path(&call.func).as_deref() != Some("torch.broadcast_tensors")
            || args.len() != count
            || count < 2
            || !call.arguments.keywords.is_empty()
            || args.iter().any(|a| matches!(a, Expr::Starred(_)))
        {
            return None;
        }
        let mut out = Vec::with_capacity(count);
        for arg in args.iter() {
            let recv = self.eval(arg);
            if recv.is_not_tensor() {
                out.push(Fact::unknown());
                continue;
            }
            let recv_code = self.fs.code(arg.range());
            let (mut fact, _, _) = self.enlarged_fact(
                arg,
                &recv,
                EnlargeKind::View,
                "broadcast_tensors",
                None,
                call.range(),
                call.range(),
                recv_code,
                None,
            );
            if let Some(e) = fact.enlarged.as_mut() {
                std::rc::Rc::make_mut(e).may = true;
            }
            out.push(fact);
        }
        Some(out)
    }
}
