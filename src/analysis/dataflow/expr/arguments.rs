//! How a call's arguments are read: positional and keyword arguments, `out=` (written in
//! place), and a recurrent layer's initial state (`hx`), which the cuDNN kernels read as dense
//! memory.

use super::*;

impl Walker<'_, '_> {
    pub(in crate::analysis::dataflow) fn eval_args(&mut self, call: &ast::ExprCall) -> Vec<Fact> {
        let facts = self.eval_args_kept(call);
        self.eval_keywords(call);
        facts
    }

    /// As [`Walker::eval_args`], the positional arguments read in `ctx` (the keywords, `out=`
    /// among them, as any other use).
    pub(in crate::analysis::dataflow) fn eval_args_in(
        &mut self,
        call: &ast::ExprCall,
        ctx: UseCtx,
    ) -> Vec<Fact> {
        let facts = call
            .arguments
            .args
            .iter()
            .map(|arg| self.eval_with(arg, ctx))
            .collect();
        self.eval_keywords(call);
        facts
    }

    /// Evaluates the positional arguments only (the caller evaluates the keywords).
    pub(in crate::analysis::dataflow) fn eval_args_kept(
        &mut self,
        call: &ast::ExprCall,
    ) -> Vec<Fact> {
        call.arguments
            .args
            .iter()
            .map(|arg| self.eval(arg))
            .collect()
    }

    /// `self.lstm(x, (h0, c0))` where `__init__` made `self.lstm` an `nn.LSTM`, `nn.GRU` or
    /// `nn.RNN`: the second argument is the initial state, which the cuDNN kernels require dense
    /// (see [`Walker::eval_keywords`]'s `hx=`).
    pub(super) fn recurrent_call(&mut self, module: &str, call: &ast::ExprCall) -> Option<Fact> {
        if !matches!(module, "LSTM" | "GRU" | "RNN") {
            return None;
        }
        for (i, arg) in call.arguments.args.iter().enumerate() {
            self.eval_state_argument(arg, i == 1);
        }
        self.eval_keywords(call);
        Some(Fact::unknown())
    }

    /// An argument of a recurrent layer; `state`: it is the initial state (`hx`), each of whose
    /// tensors must be dense.
    fn eval_state_argument(&mut self, arg: &Expr, state: bool) {
        let elements: Vec<&Expr> = match arg {
            Expr::Tuple(t) if state => t.elts.iter().collect(),
            _ => vec![arg],
        };
        for element in elements {
            let fact = self.eval(element);
            if state {
                self.mark_use(&fact, ResultUse::NeedsDense);
            }
        }
    }

    /// Evaluates keyword arguments; `out=x` writes x in place. `hx=` is torch's name for a
    /// recurrent layer's initial state (`nn.LSTM`, `nn.GRU`, `nn.RNN` and the wrappers that pass
    /// it on), which the cuDNN kernels require dense ("rnn: hx is not contiguous"): a copy made
    /// for it (`h0.expand(L, B, H).contiguous()`) is needed.
    pub(in crate::analysis::dataflow) fn eval_keywords(
        &mut self,
        call: &ast::ExprCall,
    ) -> Vec<Fact> {
        let mut facts = Vec::with_capacity(call.arguments.keywords.len());
        for kw in &call.arguments.keywords {
            let name = kw.arg.as_ref().map(|a| a.id.as_str());
            if name == Some("hx") {
                // `hx=(h0, c0)`: each state on its own.
                self.eval_state_argument(&kw.value, true);
                facts.push(Fact::unknown());
                continue;
            }
            let fact = self.eval(&kw.value);
            if name == Some("out") {
                self.mark_in_place(&fact);
            }
            facts.push(fact);
        }
        facts
    }

    /// Evaluates the positional and keyword arguments, and returns all their facts.
    pub(in crate::analysis::dataflow) fn eval_all_args(
        &mut self,
        call: &ast::ExprCall,
    ) -> Vec<Fact> {
        let mut facts = self.eval_args_kept(call);
        facts.extend(self.eval_keywords(call));
        facts
    }
}
