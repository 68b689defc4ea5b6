//! A value that enters a loop as its state: each pass rebinds its name to a value of at least its
//! full size computed from it (`h = layer(h)`, `z = block(z.to(d) + x)`, `h = h + f(h)`), so the
//! loop makes a tensor of that size on its first pass whatever the value entering it is.

use super::*;

use crate::analysis::facts::DType;
use crate::analysis::torch_api::{
    BINARY_ELEMENTWISE, DEVICE_METHODS, MATERIALIZE_METHODS, UNARY_ELEMENTWISE,
};
use crate::source::ast::{Operator, UnaryOp};

impl Walker<'_, '_> {
    /// Marks the sink results held by each name a pass of the loop `body` always rebinds from
    /// itself at full size (see [`rebinds_at_full_size`]): the value entering the loop is its
    /// state.
    pub(super) fn mark_loop_state(&mut self, body: &[Stmt]) {
        let mut states = Vec::new();
        loop_states(body, &mut states);
        for name in states {
            let Some(fact) = self.env.get(name) else {
                continue;
            };
            for id in fact.sink_results.clone() {
                if let Some(p) = self.fs.sites.get_mut(id as usize) {
                    p.result_is_loop_state = true;
                }
            }
        }
    }
}

/// The names that statements run on every pass of a loop with this `body` rebind at full size
/// from themselves. The body of a `with` runs whenever the statement does; a branch, a nested
/// loop (that marks its own state when the walk reaches it) or a `try` body that may stop early
/// are not looked into.
fn loop_states<'b>(body: &'b [Stmt], out: &mut Vec<&'b str>) {
    for stmt in body {
        match stmt {
            Stmt::With(w) => loop_states(&w.body, out),
            Stmt::Assign(a) => {
                let [target] = a.targets.as_slice() else {
                    continue;
                };
                let bound: Vec<&str> = match target {
                    Expr::Name(n) => vec![n.id.as_str()],
                    Expr::Tuple(t) => t
                        .elts
                        .iter()
                        .filter_map(|e| match e {
                            Expr::Name(n) => Some(n.id.as_str()),
                            _ => None,
                        })
                        .collect(),
                    _ => continue,
                };
                out.extend(
                    bound
                        .into_iter()
                        .filter(|name| rebinds_at_full_size(&a.value, name)),
                );
            }
            _ => {}
        }
    }
}

/// `value`, bound to `name`, is a tensor at least the size `name` had, whatever `name` held: a
/// call that takes it at full size (`layer(h)`, `self.block(hidden_states=h.to(d) + x)`: a layer
/// maps its input to an output of that size), or a fresh elementwise result of it (`h + f(h)`,
/// `-h`, `h.sigmoid()`, `h.clone()`). A cast or move of it alone (`h = h.to(d)`, `h.float()`) is
/// not: it can hand back the same broadcast view.
fn rebinds_at_full_size(value: &Expr, name: &str) -> bool {
    match value {
        Expr::BinOp(b) if b.op != Operator::MatMult => {
            keeps_full_size(&b.left, name) || keeps_full_size(&b.right, name)
        }
        Expr::UnaryOp(u) if u.op != UnaryOp::Not => keeps_full_size(&u.operand, name),
        Expr::Call(call) => match &*call.func {
            // A method of the value itself.
            Expr::Attribute(a) if keeps_full_size(&a.value, name) => {
                let method = a.attr.as_str();
                UNARY_ELEMENTWISE.contains(&method)
                    || BINARY_ELEMENTWISE.contains(&method)
                    || MATERIALIZE_METHODS.contains(&method)
            }
            _ => call
                .arguments
                .args
                .iter()
                .chain(call.arguments.keywords.iter().map(|k| &k.value))
                .any(|arg| keeps_full_size(arg, name)),
        },
        _ => false,
    }
}

/// `expr` is `name` or a value of at least its shape computed from it: casts, moves and copies
/// of it, and elementwise operations with it as an operand (a broadcast result is never smaller
/// than an operand).
fn keeps_full_size(expr: &Expr, name: &str) -> bool {
    match expr {
        Expr::Name(n) => n.id.as_str() == name,
        Expr::BinOp(b) if b.op != Operator::MatMult => {
            keeps_full_size(&b.left, name) || keeps_full_size(&b.right, name)
        }
        Expr::UnaryOp(u) if u.op != UnaryOp::Not => keeps_full_size(&u.operand, name),
        Expr::Call(call) => {
            let Expr::Attribute(a) = &*call.func else {
                return false;
            };
            let method = a.attr.as_str();
            let shape_kept = matches!(method, "to" | "type" | "type_as" | "detach")
                || DType::from_cast_method(method).is_some()
                || DEVICE_METHODS.contains(&method)
                || MATERIALIZE_METHODS.contains(&method)
                || UNARY_ELEMENTWISE.contains(&method)
                || BINARY_ELEMENTWISE.contains(&method);
            shape_kept && keeps_full_size(&a.value, name)
        }
        _ => false,
    }
}
