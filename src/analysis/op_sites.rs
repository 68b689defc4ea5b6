//! Where each operator of a function is written: for a profiler frame that only names a
//! function (`file(def_line): function`, no line of its own), the cross-reference step asks which
//! expression in that function can have run the measured operator (`aten::mul` -> a `*`,
//! `aten::to` -> a cast, ...). One match gives the exact line; several leave the function, marked
//! ambiguous. Pure syntax: no dataflow, no rule knowledge.

use crate::source::ast::visitor::{self, Visitor};
use crate::source::ast::{Expr, Operator, Stmt, UnaryOp};
use crate::source::{Ranged, TextRange};

/// One operator-bearing expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpSite {
    /// What the expression computes, as the name of the torch operator family it dispatches to
    /// (`mul`, `sub`, `div`, `matmul`, `bitwise_not`, `to`, `masked_fill`, a method or function
    /// name otherwise).
    pub op: String,
    pub range: TextRange,
}

/// A function (or method) and the operator sites in its own body (nested functions have theirs).
#[derive(Clone, Debug)]
pub struct FunctionOps {
    /// From the first decorator (or the `def`) to the end of the body: profilers name the first
    /// row of it.
    pub range: TextRange,
    pub sites: Vec<OpSite>,
}

/// Every function of a module with its operator sites.
pub fn function_ops(body: &[Stmt]) -> Vec<FunctionOps> {
    let mut out = Vec::new();
    collect_functions(body, &mut out);
    out
}

fn collect_functions(body: &[Stmt], out: &mut Vec<FunctionOps>) {
    for stmt in body {
        match stmt {
            Stmt::FunctionDef(f) => {
                let mut finder = SiteFinder::default();
                for s in &f.body {
                    finder.visit_stmt(s);
                }
                out.push(FunctionOps {
                    range: f.range(),
                    sites: finder.sites,
                });
                collect_functions(&f.body, out);
            }
            Stmt::ClassDef(c) => collect_functions(&c.body, out),
            Stmt::If(s) => {
                collect_functions(&s.body, out);
                for clause in &s.elif_else_clauses {
                    collect_functions(&clause.body, out);
                }
            }
            Stmt::Try(s) => {
                collect_functions(&s.body, out);
                collect_functions(&s.orelse, out);
                collect_functions(&s.finalbody, out);
            }
            Stmt::With(s) => collect_functions(&s.body, out),
            _ => {}
        }
    }
}

#[derive(Default)]
struct SiteFinder {
    sites: Vec<OpSite>,
}

/// Casts and conversions that dispatch to `aten::to` / `aten::_to_copy`.
const CASTS: &[&str] = &[
    "to", "type", "type_as", "float", "half", "double", "bfloat16", "bool", "long", "int", "short",
    "byte", "char", "cuda", "cpu",
];

impl<'a> Visitor<'a> for SiteFinder {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            // A nested function or class is its own scope: its sites are not this function's.
            Stmt::FunctionDef(_) | Stmt::ClassDef(_) => {}
            Stmt::AugAssign(a) => {
                if let Some(op) = binary(a.op) {
                    self.push(op, a.range());
                }
                visitor::walk_stmt(self, stmt);
            }
            _ => visitor::walk_stmt(self, stmt),
        }
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::BinOp(b) => {
                if let Some(op) = binary(b.op) {
                    self.push(op, b.range());
                }
            }
            Expr::UnaryOp(u) => match u.op {
                UnaryOp::Invert => self.push("bitwise_not", u.range()),
                UnaryOp::USub => self.push("neg", u.range()),
                _ => {}
            },
            Expr::Call(call) => {
                // Casts are methods (`x.float()`); the builtins `float(...)`, `int(...)` make
                // Python numbers.
                let op = match &*call.func {
                    Expr::Attribute(a) if CASTS.contains(&a.attr.as_str()) => Some("to"),
                    Expr::Attribute(a) => Some(a.attr.as_str()),
                    Expr::Name(n) if !CASTS.contains(&n.id.as_str()) => Some(n.id.as_str()),
                    _ => None,
                };
                if let Some(op) = op {
                    self.push(op, call.range());
                }
            }
            _ => {}
        }
        visitor::walk_expr(self, expr);
    }
}

impl SiteFinder {
    fn push(&mut self, op: &str, range: TextRange) {
        self.sites.push(OpSite {
            op: op.to_string(),
            range,
        });
    }
}

fn binary(op: Operator) -> Option<&'static str> {
    Some(match op {
        Operator::Add => "add",
        Operator::Sub => "sub",
        Operator::Mult => "mul",
        Operator::Div => "div",
        Operator::FloorDiv => "floor_divide",
        Operator::Mod => "remainder",
        Operator::Pow => "pow",
        Operator::MatMult => "matmul",
        Operator::BitAnd => "bitwise_and",
        Operator::BitOr => "bitwise_or",
        Operator::BitXor => "bitwise_xor",
        Operator::LShift | Operator::RShift => return None,
    })
}

/// The source families a profiler operator can come from: `aten::rsub` is `1.0 - x`, `aten::bmm`
/// is `@` or `matmul`, a cast's `_to_copy` is any cast method, and otherwise the operator's own
/// name (`aten::masked_fill` -> `masked_fill`, `aten::softmax` -> `softmax`).
pub fn source_ops(profiler_op: &str) -> Vec<&str> {
    let base = profiler_op.rsplit("::").next().unwrap_or(profiler_op);
    let base = base.trim_end_matches('_');
    match base {
        "to" | "_to_copy" | "copy" | "empty_strided" => vec!["to"],
        "rsub" | "sub" => vec!["sub"],
        "mul" => vec!["mul"],
        "div" | "true_divide" => vec!["div"],
        "add" => vec!["add"],
        "matmul" | "bmm" | "mm" | "baddbmm" => vec!["matmul", "bmm", "mm", "baddbmm"],
        "bitwise_not" | "logical_not" => vec!["bitwise_not", "logical_not"],
        "neg" => vec!["neg"],
        other => vec![other],
    }
}

/// The one site of `function` that can have run `profiler_op`: `Ok(Some)` with exactly one
/// candidate, `Ok(None)` with none, `Err(n)` when `n` candidates make it ambiguous.
pub fn site_for<'f>(
    function: &'f FunctionOps,
    profiler_op: &str,
) -> Result<Option<&'f OpSite>, usize> {
    let wanted = source_ops(profiler_op);
    let candidates: Vec<&OpSite> = function
        .sites
        .iter()
        .filter(|s| wanted.contains(&s.op.as_str()))
        .collect();
    match candidates.as_slice() {
        [] => Ok(None),
        [one] => Ok(Some(one)),
        many => Err(many.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::parse_module;

    const MODEL: &str = "\
class Attention:
    def forward(self, q, k, mask):
        scores = q @ k.transpose(-1, -2)
        scores = scores / 8.0
        scores = scores.masked_fill(~mask, float('-inf'))
        probs = scores.softmax(-1)
        bias = 1.0 - mask.float()
        return probs * 2, bias * 3

    def helper(self, x):
        def inner(y):
            return y / 2
        return inner(x)
";

    /// The function whose first row is `row`.
    fn function_at(row: usize) -> FunctionOps {
        function_ops(&parse_module(MODEL, false).body)
            .into_iter()
            .find(|f| row_of(f.range) == row)
            .expect("function")
    }

    fn row_of(range: TextRange) -> usize {
        MODEL[..range.start().to_usize()].matches('\n').count() + 1
    }

    #[test]
    fn each_operator_finds_its_expression() {
        let forward = function_at(2);
        let cases: &[(&str, Result<Option<usize>, usize>)] = &[
            ("aten::matmul", Ok(Some(3))),
            ("aten::bmm", Ok(Some(3))),
            ("aten::div", Ok(Some(4))),
            ("aten::masked_fill", Ok(Some(5))),
            ("aten::bitwise_not", Ok(Some(5))),
            ("aten::softmax", Ok(Some(6))),
            ("aten::rsub", Ok(Some(7))),
            ("aten::_to_copy", Ok(Some(7))),
            ("aten::to", Ok(Some(7))),
            ("aten::mul", Err(2)),
            ("aten::layer_norm", Ok(None)),
        ];
        for (op, want) in cases {
            let got = site_for(&forward, op).map(|s| s.map(|s| row_of(s.range)));
            assert_eq!(&got, want, "{op}");
        }
    }

    #[test]
    fn nested_functions_keep_their_own_sites() {
        let helper = function_at(10);
        assert!(site_for(&helper, "aten::div").is_ok_and(|s| s.is_none()));
        let inner = function_at(11);
        assert!(site_for(&inner, "aten::div").is_ok_and(|s| s.is_some()));
    }
}
