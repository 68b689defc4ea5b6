//! Results with dims of size 1, from what torch says the op does: a reduction with
//! `keepdim=True` keeps each reduced dim as a dim of size 1 (`x.mean(dim=-1, keepdim=True)`), and
//! an adaptive pooling to an output size of 1 makes its pooled dims 1
//! (`nn.AdaptiveMaxPool3d(1)`, `F.adaptive_avg_pool2d(x, (1, 1))`). A `repeat` of those dims is a
//! stretch of one value that `expand` gives as a view (OOM121).

use crate::source::ast::{self, Expr};

use crate::analysis::facts::{Fact, Shape, ValueKind};
use crate::analysis::op_table::{self, OpKind};
use crate::analysis::shape_infer::{keyword, literal_int};

use super::stmt::Walker;

/// Reductions that return `(values, indices)` when given a `dim`: their result is a tuple, not
/// the tensor the dims belong to.
const TUPLE_WITH_DIM: &[&str] = &[
    "max",
    "min",
    "median",
    "nanmedian",
    "mode",
    "kthvalue",
    "aminmax",
    "cummax",
    "cummin",
];

/// The dims a reduction with `keepdim=True` leaves at size 1: its literal `dim` (an int or a
/// tuple of ints), by keyword or at the position the op table gives. `method`: the tensor is the
/// receiver (`x.sum(1, keepdim=True)`), not the first argument (`torch.sum(x, 1, keepdim=True)`).
pub(super) fn kept_reduced_dims(
    module: Option<&str>,
    name: &str,
    call: &ast::ExprCall,
    method: bool,
) -> Option<Vec<i64>> {
    if TUPLE_WITH_DIM.contains(&name) {
        return None;
    }
    let op = match module {
        None => op_table::method(name),
        Some(m) => op_table::function(m, name),
    }?;
    if op.kind != OpKind::Reduction {
        return None;
    }
    literal_kept_dims(op, call, method)
}

/// With `keepdim=True`: the call's literal `dim` (an int or a tuple of ints), by keyword or at
/// the position the op table gives for `op`.
fn literal_kept_dims(
    op: &op_table::OpInfo,
    call: &ast::ExprCall,
    method: bool,
) -> Option<Vec<i64>> {
    if !matches!(keyword(call, "keepdim"), Some(Expr::BooleanLiteral(b)) if b.value) {
        return None;
    }
    let positional = op
        .dim_at
        .and_then(|at| usize::from(at).checked_sub(usize::from(method)))
        .and_then(|at| call.arguments.args.get(at));
    literal_dims(keyword(call, "dim").or(positional)?)
}

/// The dims an element of a `(values, indices)` reduction leaves at size 1 with `keepdim=True`
/// and a literal `dim` (`x.max(dim=1, keepdim=True)[0]`; `torch.kthvalue(x, 3, -1, True)[0]` is
/// not matched: only the `keepdim` keyword counts): torch gives both elements the input's
/// shape with the reduced dim at 1. `max`/`min` are also the two-tensor maximum; an int `dim`
/// is what tells the reduction apart.
pub(super) fn tuple_element_kept_dims(call: &ast::ExprCall) -> Option<Vec<i64>> {
    let Expr::Attribute(attr) = &*call.func else {
        return None;
    };
    let name = attr.attr.as_str();
    let method = !matches!(&*attr.value, Expr::Name(n) if n.id.as_str() == "torch");
    if !TUPLE_WITH_DIM.contains(&name) || ["aminmax", "cummax", "cummin"].contains(&name) {
        return None;
    }
    let op = if method {
        op_table::method(name)
    } else {
        op_table::function("torch", name)
    }?;
    let dims = literal_kept_dims(op, call, method)?;
    (dims.len() == 1).then_some(dims)
}

/// Whether a reduction reduces every dim: no `dim` (by keyword or at the position the op table
/// gives) and no `keepdim`. torch then returns a 0-d tensor (`x.mean()`, `torch.sum(x)`,
/// `x.norm(2)`), whose `repeat(sizes)` is `expand(sizes)` of one value.
pub(super) fn reduces_all_dims(
    module: Option<&str>,
    name: &str,
    call: &ast::ExprCall,
    method: bool,
) -> bool {
    let Some(op) = (match module {
        None => op_table::method(name),
        Some(m) => op_table::function(m, name),
    }) else {
        return false;
    };
    // `mode` reduces dim -1 by default; the others need a dim or return a tuple.
    if op.kind != OpKind::Reduction
        || ["mode", "kthvalue", "aminmax", "cummax", "cummin"].contains(&name)
    {
        return false;
    }
    if ["dim", "axis", "keepdim"]
        .iter()
        .any(|k| keyword(call, k).is_some())
    {
        return false;
    }
    let positional = call.arguments.args.len() + usize::from(method);
    if call
        .arguments
        .args
        .iter()
        .any(|a| matches!(a, Expr::Starred(_)))
    {
        return false;
    }
    match op.dim_at {
        // Arguments before the dim (`norm`'s `p`) keep it a full reduction.
        Some(at) => positional <= usize::from(at),
        // Where the dim goes is not known: only the tensor itself.
        None => positional == 1,
    }
}

/// Notes on the result of a call the dims a `keepdim=True` reduction leaves at 1 (see
/// [`kept_reduced_dims`]), or the 0-d shape of a reduction over every dim, when nothing else is
/// known of its shape.
pub(super) fn note_kept_dims(
    fact: &mut Fact,
    module: Option<&str>,
    name: &str,
    call: &ast::ExprCall,
    method: bool,
) {
    if !shape_untold(fact) {
        return;
    }
    if let Some(dims) = kept_reduced_dims(module, name, call, method) {
        fact.unit_dims = dims;
    } else if reduces_all_dims(module, name, call, method) {
        fact.shape = Some(Shape(Vec::new()));
    }
}

/// As [`note_kept_dims`], for an element of a `(values, indices)` reduction
/// (`x.max(dim=1, keepdim=True)[0]`, see [`tuple_element_kept_dims`]).
pub(super) fn note_tuple_element_dims(fact: &mut Fact, s: &ast::ExprSubscript) {
    if !shape_untold(fact) || !fact.unit_dims.is_empty() {
        return;
    }
    if let Expr::Call(call) = &*s.value
        && matches!(literal_int(&s.slice), Some(0 | 1))
        && let Some(dims) = tuple_element_kept_dims(call)
    {
        // Only torch spells `keepdim`: a tensor.
        fact.kind = ValueKind::Tensor;
        fact.unit_dims = dims;
    }
}

/// As [`note_kept_dims`], for a `torch.nn.functional` adaptive pooling to an output size of 1.
pub(super) fn note_pooled_dims(fact: &mut Fact, module: &str, name: &str, call: &ast::ExprCall) {
    if !shape_untold(fact) {
        return;
    }
    if module.ends_with("functional")
        && let Some(dims) =
            output_size_arg(call, 1).and_then(|size| adaptive_pool_unit_dims(name, call, size))
    {
        fact.unit_dims = dims;
    }
}

impl Walker<'_, '_> {
    /// `self.pool(x)` where `__init__` made `self.pool` an adaptive pooling to an output size of
    /// 1: a tensor with those dims 1, where `x` lives (a pooling reads an enlarged `x` as a
    /// reduction: its small result is no sink). None when it is no such module.
    pub(super) fn unit_pool_call(&mut self, attr: &str, call: &ast::ExprCall) -> Option<Fact> {
        let dims = self.fs.class_unit_pools.get(attr)?.clone();
        let [input] = &call.arguments.args[..] else {
            return None;
        };
        if !call.arguments.keywords.is_empty() {
            return None;
        }
        let recv = self.eval(input);
        let mut fact = Fact::tensor(recv.dtype, None).placed_like(&recv);
        fact.unit_dims = dims;
        Some(fact)
    }
}

/// A result whose size-1 dims are worth noting: a tensor (or a value of unknown kind) that is
/// not enlarged and whose shape nothing else has told.
fn shape_untold(fact: &Fact) -> bool {
    fact.enlarged.is_none() && fact.shape.is_none() && !fact.is_not_tensor()
}

/// An int or a tuple/list of ints.
fn literal_dims(expr: &Expr) -> Option<Vec<i64>> {
    match expr {
        Expr::Tuple(t) => t.elts.iter().map(literal_int).collect(),
        Expr::List(l) => l.elts.iter().map(literal_int).collect(),
        _ => literal_int(expr).map(|d| vec![d]),
    }
}

/// The pooled dims an adaptive pooling (`adaptive_avg_pool2d`, `AdaptiveMaxPool3d`) makes 1,
/// counted from the right: its `output_size` is `1` (every pooled dim) or a tuple whose entries
/// that are `1` give theirs (`(1, None, None)`: the first of three; `None` keeps a size).
/// `name` is the function's or the module class's name; `size` the output size argument.
/// A pooling that also returns indices (`return_indices=True`) gives a tuple: none.
pub(super) fn adaptive_pool_unit_dims(
    name: &str,
    call: &ast::ExprCall,
    size: &Expr,
) -> Option<Vec<i64>> {
    let lower = name.to_ascii_lowercase();
    let rest = lower
        .strip_prefix("adaptive_avg_pool")
        .or_else(|| lower.strip_prefix("adaptive_max_pool"))
        .or_else(|| lower.strip_prefix("adaptiveavgpool"))
        .or_else(|| lower.strip_prefix("adaptivemaxpool"))?;
    let pooled: i64 = match rest {
        "1d" => 1,
        "2d" => 2,
        "3d" => 3,
        _ => return None,
    };
    if matches!(keyword(call, "return_indices"), Some(Expr::BooleanLiteral(b)) if b.value) {
        return None;
    }
    let entries: Vec<&Expr> = match size {
        Expr::Tuple(t) => t.elts.iter().collect(),
        Expr::List(l) => l.elts.iter().collect(),
        one => return (literal_int(one) == Some(1)).then(|| (1..=pooled).map(|d| -d).collect()),
    };
    if entries.len() as i64 != pooled {
        return None;
    }
    let dims: Vec<i64> = entries
        .iter()
        .enumerate()
        .filter(|(_, e)| literal_int(e) == Some(1))
        .map(|(i, _)| i as i64 - pooled)
        .collect();
    (!dims.is_empty()).then_some(dims)
}

/// The output size argument of an adaptive pooling call or constructor: `output_size=`, or the
/// first positional argument after `skip` (1 for the functional form's input).
pub(super) fn output_size_arg(call: &ast::ExprCall, skip: usize) -> Option<&Expr> {
    keyword(call, "output_size").or_else(|| call.arguments.args.get(skip))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(code: &str) -> ast::ExprCall {
        let parsed = crate::source::parse_module(code, false);
        assert!(parsed.syntax_errors.is_empty(), "bad test input: {code}");
        match parsed.body.into_iter().next() {
            Some(ast::Stmt::Expr(e)) => match *e.value {
                Expr::Call(c) => c,
                other => panic!("not a call: {other:?}"),
            },
            other => panic!("not an expression: {other:?}"),
        }
    }

    /// A call's text, its module (None: a method), its name, whether it is a method, and the
    /// dims it leaves at 1.
    type ReductionCase<'a> = (&'a str, Option<&'a str>, &'a str, bool, Option<Vec<i64>>);

    #[test]
    fn tuple_reduction_elements_keep_their_dims() {
        let dims = |code: &str| tuple_element_kept_dims(&call(code));
        assert_eq!(dims("x.max(dim=1, keepdim=True)"), Some(vec![1]));
        assert_eq!(dims("x.max(-1, keepdim=True)"), Some(vec![-1]));
        assert_eq!(dims("torch.max(x, 1, keepdim=True)"), Some(vec![1]));
        assert_eq!(dims("torch.min(x, dim=2, keepdim=True)"), Some(vec![2]));
        assert_eq!(dims("x.kthvalue(3, 1, keepdim=True)"), Some(vec![1]));
        // No keepdim, a computed dim, the two-tensor maximum, a reduction with no tuple.
        assert_eq!(dims("x.max(dim=1)"), None);
        assert_eq!(dims("x.max(dim=d, keepdim=True)"), None);
        assert_eq!(dims("torch.max(x, y)"), None);
        assert_eq!(dims("x.sum(1, keepdim=True)"), None);
    }

    #[test]
    fn keepdim_reductions_keep_their_dims() {
        let cases: &[ReductionCase] = &[
            (
                "x.mean(dim=-1, keepdim=True)",
                None,
                "mean",
                true,
                Some(vec![-1]),
            ),
            ("x.sum(2, keepdim=True)", None, "sum", true, Some(vec![2])),
            (
                "x.amax(dim=(2, 3), keepdim=True)",
                None,
                "amax",
                true,
                Some(vec![2, 3]),
            ),
            (
                "torch.mean(x, 1, keepdim=True)",
                Some("torch"),
                "mean",
                false,
                Some(vec![1]),
            ),
            // No keepdim, a computed dim, or a reduction that returns (values, indices).
            ("x.mean(dim=-1)", None, "mean", true, None),
            ("x.mean(dim=d, keepdim=True)", None, "mean", true, None),
            ("x.max(dim=-1, keepdim=True)", None, "max", true, None),
            ("x.softmax(-1)", None, "softmax", true, None),
        ];
        for (code, module, name, method, want) in cases {
            let got = kept_reduced_dims(*module, name, &call(code), *method);
            assert_eq!(&got, want, "{code}");
        }
    }

    #[test]
    fn adaptive_pools_to_one() {
        let cases: &[(&str, &str, usize, Option<Vec<i64>>)] = &[
            (
                "nn.AdaptiveMaxPool3d(1)",
                "AdaptiveMaxPool3d",
                0,
                Some(vec![-1, -2, -3]),
            ),
            (
                "nn.AdaptiveAvgPool2d((1, 1))",
                "AdaptiveAvgPool2d",
                0,
                Some(vec![-2, -1]),
            ),
            (
                "nn.AdaptiveAvgPool3d((1, None, None))",
                "AdaptiveAvgPool3d",
                0,
                Some(vec![-3]),
            ),
            (
                "F.adaptive_avg_pool1d(x, 1)",
                "adaptive_avg_pool1d",
                1,
                Some(vec![-1]),
            ),
            (
                "F.adaptive_max_pool2d(x, output_size=1)",
                "adaptive_max_pool2d",
                1,
                Some(vec![-1, -2]),
            ),
            // Another size, indices returned, or not an adaptive pooling.
            ("nn.AdaptiveAvgPool2d(7)", "AdaptiveAvgPool2d", 0, None),
            (
                "nn.AdaptiveMaxPool2d(1, return_indices=True)",
                "AdaptiveMaxPool2d",
                0,
                None,
            ),
            ("nn.MaxPool2d(1)", "MaxPool2d", 0, None),
        ];
        for (code, name, skip, want) in cases {
            let c = call(code);
            let got = output_size_arg(&c, *skip).and_then(|s| adaptive_pool_unit_dims(name, &c, s));
            assert_eq!(&got, want, "{code}");
        }
    }
}
