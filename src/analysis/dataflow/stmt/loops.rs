//! Loops: a body walked until its facts stop changing, with `break`s and `continue`s joined.

use super::*;

impl Walker<'_, '_> {
    /// Runs a loop body until the facts stop changing (bounded). The facts at the head join the
    /// entry with every pass's end (and its `continue`s). After the loop the body is taken to
    /// have run at least once: a name the body always rebinds is no longer what it was before
    /// the loop (the latents a denoising loop replaces on every step). When no pass reaches its
    /// end, the loop is left as if its body never ran.
    pub(super) fn run_loop(
        &mut self,
        body: &[Stmt],
        orelse: &[Stmt],
        mut head: impl FnMut(&mut Self),
    ) {
        self.loops.push(LoopExits::default());
        let mut last_end: Option<Env> = None;
        for _ in 0..4 {
            let start = self.env.clone();
            head(self);
            self.run_body(body);
            let mut end = self.live();
            if let Some(exits) = self.loops.last_mut()
                && let Some(continues) = exits.continues.take()
            {
                join_into(&mut end, &continues);
            }
            let joined = match &end {
                Some(end) => join_env(&start, end),
                None => start.clone(),
            };
            last_end = end;
            let stable = joined == start;
            self.env = joined;
            self.dead = false;
            if stable {
                break;
            }
        }
        let exits = self.loops.pop().unwrap_or_default();
        if let Some(end) = last_end {
            self.env = end;
        }
        self.run_body(orelse);
        let mut merged = self.live();
        if let Some(breaks) = &exits.breaks {
            join_into(&mut merged, breaks);
        }
        let fallback = self.env.clone();
        self.resume(merged, fallback);
    }

    /// What a `for` binds on each pass: the Python ints of `range(...)` are numbers (`x ** i`
    /// in `for i in range(order)` is an op with a number); anything else is not known.
    pub(super) fn loop_target_fact(&self, iter: &Expr) -> Fact {
        match iter {
            Expr::Call(c)
                if matches!(&*c.func, Expr::Name(n) if n.id.as_str() == "range")
                    && !self.env.contains_key("range") =>
            {
                Fact::of_kind(ValueKind::Scalar)
            }
            _ => Fact::unknown(),
        }
    }
}
