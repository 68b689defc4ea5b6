//! Shapes through view ops (`view`, `reshape`, `flatten`, `unsqueeze`, `transpose`, `permute`,
//! `.T`, ...) and basic indexing (`x[:, None]`, `x[..., 0]`): the shape they give, and whether a
//! view merges dims (which a broadcast view cannot do without a copy).

use crate::analysis::facts::{Dim, Shape, SymExpr};
use crate::source::ast::{Expr, Number, UnaryOp};

use super::{is_literal_int, literal_int, sym_expr};

/// How many dims a `view`/`reshape` call asks for, when that is clear.
pub(in crate::analysis) fn size_arg_count(args: &[&Expr]) -> Option<usize> {
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

/// Whether `flatten(start, end)` on a tensor of `rank` dims merges two or more of them.
pub(in crate::analysis) fn flatten_merges(args: &[&Expr], rank: Option<usize>) -> Option<bool> {
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
pub(in crate::analysis) fn view_shape(
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
            let inferred = inferred_view_dim(&elts, shape, text);
            Some(Shape(
                elts.iter()
                    .map(|e| {
                        if is_literal_int(e, -1) {
                            inferred.clone().map_or(Dim::Unknown, Dim::Size)
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

/// The size a single `-1` of `view`/`reshape` stands for, when the source's dims are known and the
/// other sizes are `1` or name source dims: what is left of the source (`arange(n).view(1, -1, 1)`
/// is `[1, n, 1]`; `x.view(b, -1)` of `[b, s, d]` is `[b, s * d]`).
fn inferred_view_dim(elts: &[&Expr], shape: Option<&Shape>, text: &str) -> Option<SymExpr> {
    if elts.iter().filter(|e| is_literal_int(e, -1)).count() != 1 {
        return None;
    }
    let mut left: Vec<SymExpr> = Vec::new();
    for dim in &shape?.0 {
        match dim {
            Dim::Unknown => return None,
            d if d.is_one() => {}
            Dim::Size(e) => left.push(e.clone()),
        }
    }
    for e in elts {
        if is_literal_int(e, -1) || is_literal_int(e, 1) {
            continue;
        }
        let size = sym_expr(e, text);
        let at = left.iter().position(|d| *d == size)?;
        left.remove(at);
    }
    let mut dims = left.into_iter();
    let first = dims.next().unwrap_or(SymExpr::Num(1));
    Some(dims.fold(first, |acc, d| SymExpr::Mul(Box::new(acc), Box::new(d))))
}

/// One element of a subscript, by what it does to the dims.
pub(in crate::analysis) enum Index {
    Full,
    Partial,
    NewAxis,
    Ellipsis,
    Int,
    Other,
}

/// A slice with literal bounds that spans at most one element (`:1`, `2:3`).
pub(in crate::analysis) fn slice_takes_one(expr: &Expr) -> bool {
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

/// What one subscript element is: `:`, a partial slice, `None`, `...`, an integer, or other.
pub(in crate::analysis) fn classify_index(expr: &Expr) -> Index {
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

/// The shape after basic indexing (slices, `None`, `...`, integers), when it can be told. `name`:
/// the indexed tensor as written, when it is a plain (dotted) name: a dim of unknown size that the
/// subscript keeps whole is then that tensor's size at its place (`mask.shape[0]` of
/// `mask[:, None, None, :]`), which says more than an unknown extent (not for a 1-d tensor, nor
/// one whose dims all move behind new axes).
pub(in crate::analysis) fn index_shape(
    kinds: &[Index],
    shape: Option<&Shape>,
    name: Option<&str>,
) -> Option<Shape> {
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
        None if ellipses == 0 => (0..consumed)
            .map(|i| match name {
                // Only when the tensor's leading dim stays the leading one (`m[:, None, :]`), as
                // a batch does: a 1-d tensor's one dim is its extent, and a table moved behind
                // new axes (`rel_pos[None, None, :, :]`) has no batch dim.
                Some(name) if consumed > 1 && !matches!(kinds.first(), Some(Index::NewAxis)) => {
                    Dim::Size(SymExpr::Opaque(format!("{name}.shape[{i}]")))
                }
                _ => Dim::Unknown,
            })
            .collect(),
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
    // Of a tensor of unknown rank, integer indices alone (`enc(x)[1]`) may leave any number of
    // dims: no 0-d fact from an assumed rank.
    if shape.is_none() && out.is_empty() {
        return None;
    }
    Some(Shape(out))
}
