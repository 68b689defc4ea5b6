//! Shapes told from the syntax alone: the size arguments of enlargers, the shapes `expand`,
//! `repeat`, view ops, indexing and factories give, and symbolic sizes. Pure functions of the AST
//! (and of a known source shape), so they are unit-tested here rather than through fixtures.

use crate::source::Ranged;
use crate::source::ast::{self, Expr, Number, Operator, UnaryOp};

use super::facts::{Dim, Shape, SymExpr};

#[cfg(test)]
mod tests;

/// The size arguments of an enlarger.
pub(super) enum SizeArg {
    /// `-1`: keep the source's size.
    Keep,
    Size(SymExpr),
}

pub(super) enum Sizes {
    NotEnlarging,
    Dims(Vec<SizeArg>),
    /// `expand_as(y)`, `expand(y.shape)`: y's shape.
    LikeOther,
    Unknown,
}

/// The value of an integer literal (`3`, `-1`).
pub(super) fn literal_int(expr: &Expr) -> Option<i64> {
    match expr {
        Expr::NumberLiteral(n) => match &n.value {
            Number::Int(i) => i.as_i64(),
            _ => None,
        },
        Expr::UnaryOp(u) if u.op == UnaryOp::USub => literal_int(&u.operand).map(|v| -v),
        _ => None,
    }
}

fn is_literal_int(expr: &Expr, value: i64) -> bool {
    match expr {
        Expr::NumberLiteral(n) => matches!(&n.value, Number::Int(i) if i.as_i64() == Some(value)),
        Expr::UnaryOp(u) if u.op == UnaryOp::USub => is_literal_int(&u.operand, -value),
        _ => false,
    }
}

/// `recv.shape`, `recv.size()`, `*recv.shape`: the code of `recv`.
fn shape_source(expr: &Expr, text: &str) -> Option<String> {
    let inner = match expr {
        Expr::Starred(s) => &*s.value,
        other => other,
    };
    let base = match inner {
        Expr::Attribute(a) if a.attr.id.as_str() == "shape" => &*a.value,
        Expr::Call(c) if c.arguments.args.is_empty() => match &*c.func {
            Expr::Attribute(a) if a.attr.id.as_str() == "size" => &*a.value,
            _ => return None,
        },
        _ => return None,
    };
    Some(collapse_code(
        text.get(base.range().to_std_range()).unwrap_or(""),
    ))
}

pub(super) fn enlarger_sizes(
    op: &str,
    args: &[&Expr],
    call: &ast::ExprCall,
    text: &str,
    recv_code: &str,
) -> Sizes {
    match op {
        "expand_as" => {
            return match args.first() {
                Some(other)
                    if collapse_code(text.get(other.range().to_std_range()).unwrap_or(""))
                        == recv_code =>
                {
                    Sizes::NotEnlarging
                }
                Some(_) => Sizes::LikeOther,
                None => Sizes::Unknown,
            };
        }
        "repeat_interleave" => {
            let repeats = args.first().copied().or_else(|| keyword(call, "repeats"));
            return match repeats {
                None => Sizes::NotEnlarging,
                Some(r) if is_literal_int(r, 1) => Sizes::NotEnlarging,
                Some(_) => Sizes::Unknown,
            };
        }
        _ => {}
    }
    let mut elts: Vec<&Expr> = match args {
        [single] => match single {
            Expr::Tuple(t) => t.elts.iter().collect(),
            Expr::List(t) => t.elts.iter().collect(),
            other => vec![*other],
        },
        many => many.to_vec(),
    };
    if elts.is_empty()
        && let Some(size) = keyword(call, "size").or_else(|| keyword(call, "dims"))
    {
        elts = vec![size];
    }
    if elts.len() == 1
        && let Some(source) = shape_source(elts[0], text)
    {
        return if source == recv_code {
            Sizes::NotEnlarging
        } else {
            Sizes::LikeOther
        };
    }
    if elts.is_empty() || elts.iter().any(|e| matches!(e, Expr::Starred(_))) {
        return Sizes::Unknown;
    }
    // `expand(shape)`, `expand((b, 1) + x.shape[1:])`: a whole size held in one expression.
    if let [single] = elts.as_slice()
        && !matches!(single, Expr::NumberLiteral(_) | Expr::UnaryOp(_))
        && args.len() == 1
    {
        return Sizes::Unknown;
    }
    if elts
        .iter()
        .all(|e| is_literal_int(e, 1) || is_literal_int(e, -1))
    {
        return Sizes::NotEnlarging;
    }
    Sizes::Dims(
        elts.iter()
            .map(|e| {
                if is_literal_int(e, -1) {
                    SizeArg::Keep
                } else {
                    SizeArg::Size(sym_expr(e, text))
                }
            })
            .collect(),
    )
}

/// The shape `expand(dims)` gives, aligning the source's dims from the right.
pub(super) fn expand_shape(dims: &[SizeArg], source: Option<&Shape>) -> Option<Shape> {
    let k = dims.len();
    Some(Shape(
        dims.iter()
            .enumerate()
            .map(|(i, d)| match d {
                SizeArg::Size(e) => Dim::Size(e.clone()),
                SizeArg::Keep => source
                    .and_then(|s| {
                        let offset = k.checked_sub(s.rank())?;
                        i.checked_sub(offset).and_then(|j| s.0.get(j).cloned())
                    })
                    .unwrap_or(Dim::Unknown),
            })
            .collect(),
    ))
}

/// The shape `repeat(counts)` gives, when the source's rank is known.
pub(super) fn repeat_shape(op: &str, counts: &[SizeArg], source: Option<&Shape>) -> Option<Shape> {
    if op != "repeat" && op != "tile" {
        return None;
    }
    let source = source?;
    let k = counts.len();
    let r = source.rank();
    if k < r {
        return None;
    }
    Some(Shape(
        counts
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let src = if i >= k - r {
                    Some(&source.0[i - (k - r)])
                } else {
                    None
                };
                let count = match c {
                    SizeArg::Size(e) => e.clone(),
                    SizeArg::Keep => return Dim::Unknown,
                };
                match src {
                    None => Dim::Size(count),
                    Some(d) if count == SymExpr::Num(1) => d.clone(),
                    Some(Dim::Size(s)) if *s == SymExpr::Num(1) => Dim::Size(count),
                    Some(Dim::Size(s)) => {
                        Dim::Size(SymExpr::Mul(Box::new(count), Box::new(s.clone())))
                    }
                    Some(Dim::Unknown) => Dim::Unknown,
                }
            })
            .collect(),
    ))
}

/// For OOM121: the `expand` arguments equivalent to this `repeat`, when every repeated dim of the
/// source is known to be 1.
pub(super) fn repeat_as_expand_args(
    counts: &[SizeArg],
    source: Option<&Shape>,
    unit_dims: &[i64],
) -> Option<String> {
    let k = counts.len();
    // Unknown rank with dims known to be 1: take the rank to be the number of counts (a repeat
    // with fewer counts than dims is an error, and one that adds dims is rare).
    let assumed;
    let source = match source {
        Some(s) => s,
        None if !unit_dims.is_empty() => {
            let mut dims = vec![Dim::Unknown; k];
            for &u in unit_dims {
                let pos = if u < 0 { k as i64 + u } else { u };
                dims[usize::try_from(pos).ok().filter(|p| *p < k)?] = Dim::Size(SymExpr::Num(1));
            }
            assumed = Shape(dims);
            &assumed
        }
        None => return None,
    };
    let r = source.rank();
    // A repeat that adds leading dims could be misaligned with a guessed rank: only same-rank
    // repeats are suggested.
    if k != r {
        return None;
    }
    let mut out = Vec::with_capacity(k);
    for (i, c) in counts.iter().enumerate() {
        let count = match c {
            SizeArg::Size(e) => e,
            SizeArg::Keep => return None,
        };
        if i < k - r {
            out.push(count.to_string());
        } else if *count == SymExpr::Num(1) {
            out.push("-1".to_string());
        } else if source.0[i - (k - r)].is_one() {
            out.push(count.to_string());
        } else {
            return None;
        }
    }
    // Repeating nothing is not worth a suggestion.
    if out.iter().all(|a| a == "-1" || a == "1") {
        return None;
    }
    Some(out.join(", "))
}

/// How many dims a `view`/`reshape` call asks for, when that is clear.
pub(super) fn size_arg_count(args: &[&Expr]) -> Option<usize> {
    match args {
        [Expr::Tuple(t)] => {
            (!t.elts.iter().any(|e| matches!(e, Expr::Starred(_)))).then_some(t.elts.len())
        }
        [Expr::List(t)] => {
            (!t.elts.iter().any(|e| matches!(e, Expr::Starred(_)))).then_some(t.elts.len())
        }
        [Expr::NumberLiteral(_) | Expr::Name(_) | Expr::BinOp(_) | Expr::UnaryOp(_)] => Some(1),
        [_] => None,
        many if !many.iter().any(|e| matches!(e, Expr::Starred(_))) => Some(many.len()),
        _ => None,
    }
}

pub(super) fn flatten_merges(args: &[&Expr], rank: Option<usize>) -> Option<bool> {
    let rank = rank?;
    let norm = |e: &Expr| -> Option<i64> {
        let v = match e {
            Expr::NumberLiteral(n) => match &n.value {
                Number::Int(i) => i.as_i64()?,
                _ => return None,
            },
            Expr::UnaryOp(u) if u.op == UnaryOp::USub => match &*u.operand {
                Expr::NumberLiteral(n) => match &n.value {
                    Number::Int(i) => -(i.as_i64()?),
                    _ => return None,
                },
                _ => return None,
            },
            _ => return None,
        };
        Some(if v < 0 { v + rank as i64 } else { v })
    };
    let start = match args.first() {
        Some(e) => norm(e)?,
        None => 0,
    };
    let end = match args.get(1) {
        Some(e) => norm(e)?,
        None => rank as i64 - 1,
    };
    Some(end > start)
}

/// The shape after a view op, when it can be told.
pub(super) fn view_shape(
    op: &str,
    args: &[&Expr],
    shape: Option<&Shape>,
    text: &str,
) -> Option<Shape> {
    let int_arg = |i: usize| -> Option<i64> {
        match args.get(i)? {
            Expr::NumberLiteral(n) => match &n.value {
                Number::Int(v) => v.as_i64(),
                _ => None,
            },
            Expr::UnaryOp(u) if u.op == UnaryOp::USub => match &*u.operand {
                Expr::NumberLiteral(n) => match &n.value {
                    Number::Int(v) => v.as_i64().map(|v| -v),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        }
    };
    match op {
        "detach" | "requires_grad_" => shape.cloned(),
        "unsqueeze" => {
            let mut dims = shape?.0.clone();
            let k = int_arg(0)?;
            let pos = if k < 0 { dims.len() as i64 + 1 + k } else { k };
            let pos = usize::try_from(pos).ok().filter(|p| *p <= dims.len())?;
            dims.insert(pos, Dim::Size(SymExpr::Num(1)));
            Some(Shape(dims))
        }
        "transpose" | "swapaxes" | "swapdims" => {
            let mut dims = shape?.0.clone();
            let n = dims.len() as i64;
            let a = int_arg(0)?;
            let b = int_arg(1)?;
            let a = usize::try_from(if a < 0 { a + n } else { a }).ok()?;
            let b = usize::try_from(if b < 0 { b + n } else { b }).ok()?;
            if a >= dims.len() || b >= dims.len() {
                return None;
            }
            dims.swap(a, b);
            Some(Shape(dims))
        }
        "squeeze" => {
            let dims = &shape?.0;
            match args.first() {
                None => Some(Shape(
                    dims.iter().filter(|d| !d.is_one()).cloned().collect(),
                )),
                Some(_) => {
                    let k = int_arg(0)?;
                    let n = dims.len() as i64;
                    let pos = usize::try_from(if k < 0 { k + n } else { k }).ok()?;
                    let mut out = dims.clone();
                    if out.get(pos).is_some_and(Dim::is_one) {
                        out.remove(pos);
                    }
                    Some(Shape(out))
                }
            }
        }
        "T" => Some(Shape(shape?.0.iter().rev().cloned().collect())),
        "mT" | "mH" => {
            let mut dims = shape?.0.clone();
            let n = dims.len();
            if n < 2 {
                return None;
            }
            dims.swap(n - 2, n - 1);
            Some(Shape(dims))
        }
        "permute" => {
            let dims = &shape?.0;
            let order: Vec<&Expr> = match args {
                [Expr::Tuple(t)] => t.elts.iter().collect(),
                [Expr::List(t)] => t.elts.iter().collect(),
                many => many.to_vec(),
            };
            if order.len() != dims.len() {
                return None;
            }
            let mut out = Vec::with_capacity(dims.len());
            for e in order {
                let Expr::NumberLiteral(n) = e else {
                    return None;
                };
                let Number::Int(i) = &n.value else {
                    return None;
                };
                out.push(dims.get(i.as_usize()?)?.clone());
            }
            Some(Shape(out))
        }
        "view" | "reshape" => {
            let elts: Vec<&Expr> = match args {
                [Expr::Tuple(t)] => t.elts.iter().collect(),
                [Expr::List(t)] => t.elts.iter().collect(),
                many => many.to_vec(),
            };
            if elts.is_empty() || elts.iter().any(|e| matches!(e, Expr::Starred(_))) {
                return None;
            }
            // `view(torch.float16)` reinterprets the dtype: shape unknown.
            if elts.len() == 1 && matches!(elts[0], Expr::Attribute(_)) {
                return None;
            }
            Some(Shape(
                elts.iter()
                    .map(|e| {
                        if is_literal_int(e, -1) {
                            Dim::Unknown
                        } else {
                            Dim::Size(sym_expr(e, text))
                        }
                    })
                    .collect(),
            ))
        }
        _ => None,
    }
}

pub(super) enum Index {
    Full,
    Partial,
    NewAxis,
    Ellipsis,
    Int,
    Other,
}

/// A slice with literal bounds that spans at most one element (`:1`, `2:3`).
pub(super) fn slice_takes_one(expr: &Expr) -> bool {
    let Expr::Slice(s) = expr else { return false };
    if s.step.is_some() {
        return false;
    }
    let lower = match &s.lower {
        None => Some(0),
        Some(e) => literal_int(e),
    };
    let upper = s.upper.as_deref().and_then(literal_int);
    match (lower, upper) {
        (Some(l), Some(u)) if l >= 0 && u >= 0 => u - l <= 1,
        // `-1:` takes the last element.
        (Some(-1), None) => true,
        _ => false,
    }
}

pub(super) fn classify_index(expr: &Expr) -> Index {
    match expr {
        Expr::Slice(s) => {
            if s.lower.is_none() && s.upper.is_none() && s.step.is_none() {
                Index::Full
            } else {
                Index::Partial
            }
        }
        Expr::NoneLiteral(_) => Index::NewAxis,
        Expr::EllipsisLiteral(_) => Index::Ellipsis,
        Expr::NumberLiteral(_) => Index::Int,
        Expr::UnaryOp(u) if matches!(&*u.operand, Expr::NumberLiteral(_)) => Index::Int,
        _ => Index::Other,
    }
}

pub(super) fn index_shape(kinds: &[Index], shape: Option<&Shape>) -> Option<Shape> {
    if kinds.iter().any(|k| matches!(k, Index::Other)) {
        return None;
    }
    let ellipses = kinds
        .iter()
        .filter(|k| matches!(k, Index::Ellipsis))
        .count();
    if ellipses > 1 {
        return None;
    }
    let consumed = kinds
        .iter()
        .filter(|k| matches!(k, Index::Full | Index::Partial | Index::Int))
        .count();
    let src = match shape {
        Some(s) => s.0.clone(),
        // Unknown rank: `x[:, None, None, :]` is taken to name every dim of x (an ellipsis makes
        // the rank unknowable).
        None if ellipses == 0 => vec![Dim::Unknown; consumed],
        None => return None,
    };
    if consumed > src.len() {
        return None;
    }
    let mut out = Vec::new();
    let mut i = 0;
    for k in kinds {
        match k {
            Index::Full => {
                out.push(src[i].clone());
                i += 1;
            }
            Index::Partial => {
                out.push(Dim::Unknown);
                i += 1;
            }
            Index::Int => i += 1,
            Index::NewAxis => out.push(Dim::Size(SymExpr::Num(1))),
            Index::Ellipsis => {
                let skip = src.len() - consumed;
                out.extend(src[i..i + skip].iter().cloned());
                i += skip;
            }
            Index::Other => return None,
        }
    }
    out.extend(src[i..].iter().cloned());
    Some(Shape(out))
}

/// Sizes passed to `torch.ones(b, s)` / `torch.ones((b, s))`.
pub(super) fn factory_shape(args: &[&Expr], text: &str) -> Option<Shape> {
    let elts: Vec<&Expr> = match args {
        [Expr::Tuple(t)] => t.elts.iter().collect(),
        [Expr::List(t)] => t.elts.iter().collect(),
        many => many.to_vec(),
    };
    if elts.is_empty()
        || elts
            .iter()
            .any(|e| matches!(e, Expr::Starred(_)) || shape_source(e, text).is_some())
    {
        return None;
    }
    Some(Shape(
        elts.iter().map(|e| Dim::Size(sym_expr(e, text))).collect(),
    ))
}

/// `[x] * n`, `[x, x, x]`: the repeated element of a `torch.cat` argument.
pub(super) fn repeated_list_element<'e>(expr: &'e Expr, text: &str) -> Option<&'e Expr> {
    match expr {
        Expr::BinOp(b) if b.op == Operator::Mult => match (&*b.left, &*b.right) {
            (Expr::List(l), _) | (_, Expr::List(l)) if l.elts.len() == 1 => Some(&l.elts[0]),
            (Expr::Tuple(l), _) | (_, Expr::Tuple(l)) if l.elts.len() == 1 => Some(&l.elts[0]),
            _ => None,
        },
        Expr::List(l) if l.elts.len() >= 2 => {
            let first = text.get(l.elts[0].range().to_std_range())?;
            l.elts[1..]
                .iter()
                .all(|e| text.get(e.range().to_std_range()) == Some(first))
                .then(|| &l.elts[0])
                .filter(|e| matches!(e, Expr::Name(_) | Expr::Attribute(_)))
        }
        _ => None,
    }
}

pub(super) fn list_repeat_count(expr: &Expr) -> Option<&Expr> {
    match expr {
        Expr::BinOp(b) if b.op == Operator::Mult => match (&*b.left, &*b.right) {
            (Expr::List(_) | Expr::Tuple(_), count) | (count, Expr::List(_) | Expr::Tuple(_)) => {
                Some(count)
            }
            _ => None,
        },
        _ => None,
    }
}

/// A symbolic size from a size argument.
pub(super) fn sym_expr(expr: &Expr, text: &str) -> SymExpr {
    match expr {
        Expr::NumberLiteral(n) => match &n.value {
            Number::Int(i) => i
                .as_i64()
                .map_or_else(|| SymExpr::Opaque(i.to_string()), SymExpr::Num),
            _ => SymExpr::Opaque(collapse_code(
                text.get(expr.range().to_std_range()).unwrap_or(""),
            )),
        },
        Expr::Name(n) => SymExpr::Var(n.id.to_string()),
        Expr::Attribute(a) if matches!(&*a.value, Expr::Name(_) | Expr::Attribute(_)) => {
            SymExpr::Var(a.attr.id.to_string())
        }
        Expr::UnaryOp(u) if u.op == UnaryOp::USub => match sym_expr(&u.operand, text) {
            SymExpr::Num(v) => SymExpr::Num(-v),
            _ => SymExpr::Opaque(collapse_code(
                text.get(expr.range().to_std_range()).unwrap_or(""),
            )),
        },
        Expr::BinOp(b) => {
            let l = Box::new(sym_expr(&b.left, text));
            let r = Box::new(sym_expr(&b.right, text));
            match b.op {
                Operator::Mult => SymExpr::Mul(l, r),
                Operator::Add => SymExpr::Add(l, r),
                Operator::Sub => SymExpr::Sub(l, r),
                Operator::FloorDiv => SymExpr::FloorDiv(l, r),
                _ => SymExpr::Opaque(collapse_code(
                    text.get(expr.range().to_std_range()).unwrap_or(""),
                )),
            }
        }
        _ => SymExpr::Opaque(collapse_code(
            text.get(expr.range().to_std_range()).unwrap_or(""),
        )),
    }
}

/// The value of keyword argument `name` of a call.
pub(super) fn keyword<'c>(call: &'c ast::ExprCall, name: &str) -> Option<&'c Expr> {
    call.arguments
        .keywords
        .iter()
        .find(|k| k.arg.as_ref().is_some_and(|a| a.id.as_str() == name))
        .map(|k| &k.value)
}

/// Source code as one line: line breaks, indentation and trailing comments of a chain split over
/// several lines are collapsed.
pub(super) fn collapse_code(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    for line in code.split(['\n', '\r']) {
        let line = match line.find('#') {
            Some(pos) if !line[..pos].contains(['\'', '"']) => &line[..pos],
            _ => line,
        };
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if !out.is_empty()
            && !out.ends_with(['(', '[', '{'])
            && !line.starts_with([')', ']', '}', '.', ','])
        {
            out.push(' ');
        }
        out.push_str(line);
    }
    out.trim().to_string()
}
