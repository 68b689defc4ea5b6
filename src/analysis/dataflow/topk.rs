//! Which names of a function hold a top-k selection (`scores, index = torch.topk(...)`,
//! `topk_ind = x.topk(k).indices`, `index = index // n` after it): a gather index made from one
//! picks a few rows, so repeating it by a size read off a tensor is left alone.

use rustc_hash::FxHashSet;

use crate::source::ast::{Expr, Stmt};
use crate::source::nested_blocks;

/// The names bound, anywhere in `body` (not in nested functions or classes), from an expression
/// that holds a top-k selection; a name spelled with `topk` counts too (a parameter `topk_ind`).
pub(super) fn topk_names(body: &[Stmt]) -> FxHashSet<String> {
    let mut names = FxHashSet::default();
    // Twice: a name bound from another bound later in the text (loops).
    for _ in 0..2 {
        collect(body, &mut names);
    }
    names
}

fn collect(body: &[Stmt], names: &mut FxHashSet<String>) {
    for stmt in body {
        match stmt {
            Stmt::Assign(a) if holds_topk(&a.value, names) => {
                for target in &a.targets {
                    bind(target, names);
                }
            }
            Stmt::AnnAssign(a) if a.value.as_deref().is_some_and(|v| holds_topk(v, names)) => {
                bind(&a.target, names);
            }
            _ => {}
        }
        for block in nested_blocks(stmt) {
            collect(block, names);
        }
    }
}

fn bind(target: &Expr, names: &mut FxHashSet<String>) {
    match target {
        Expr::Name(n) => {
            names.insert(n.id.to_string());
        }
        Expr::Tuple(t) => t.elts.iter().for_each(|e| bind(e, names)),
        Expr::List(l) => l.elts.iter().for_each(|e| bind(e, names)),
        Expr::Starred(s) => bind(&s.value, names),
        _ => {}
    }
}

/// Whether `expr` is, or is computed from, a top-k selection: a `topk` call, or a name in
/// `names` or spelled with `topk`, through attributes (`.indices`), subscripts, method calls on
/// it and arithmetic.
pub(super) fn holds_topk(expr: &Expr, names: &FxHashSet<String>) -> bool {
    match expr {
        Expr::Name(n) => {
            let id = n.id.as_str();
            names.contains(id) || id.to_ascii_lowercase().contains("topk")
        }
        Expr::Call(c) => match &*c.func {
            Expr::Attribute(a) => a.attr.id.as_str() == "topk" || holds_topk(&a.value, names),
            Expr::Name(n) => n.id.as_str() == "topk",
            _ => false,
        },
        Expr::Attribute(a) => holds_topk(&a.value, names),
        Expr::Subscript(s) => holds_topk(&s.value, names),
        Expr::BinOp(b) => holds_topk(&b.left, names) || holds_topk(&b.right, names),
        Expr::UnaryOp(u) => holds_topk(&u.operand, names),
        Expr::Tuple(t) => t.elts.iter().any(|e| holds_topk(e, names)),
        _ => false,
    }
}
