//! Shapes told from the syntax alone: the size arguments of enlargers, the shapes `expand`,
//! `repeat`, view ops, indexing and factories give, and symbolic sizes. Pure functions of the AST
//! (and of a known source shape), so they are unit-tested here rather than through fixtures.
//! View ops and indexing are in [`view`], `einops.repeat` patterns in [`einops`].

use crate::source::Ranged;
use crate::source::ast::{self, Expr, Number, Operator, UnaryOp};

use super::facts::{Dim, Shape, SymExpr};

mod einops;
mod view;

pub(super) use view::{
    Index, classify_index, flatten_merges, index_shape, size_arg_count, slice_takes_one, view_shape,
};

pub(super) use einops::{EinopsAxis, EinopsRepeat, einops_repeat_pattern};

#[cfg(test)]
mod tests;

/// The size arguments of an enlarger.
pub(super) enum SizeArg {
    /// `-1`: keep the source's size.
    Keep,
    Size(SymExpr),
}

/// What an enlarger call asks for.
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

/// `expr` is the integer literal `value` (`1`, `-1`).
fn is_literal_int(expr: &Expr, value: i64) -> bool {
    match expr {
        Expr::NumberLiteral(n) => matches!(&n.value, Number::Int(i) if i.as_i64() == Some(value)),
        Expr::UnaryOp(u) if u.op == UnaryOp::USub => is_literal_int(&u.operand, -value),
        _ => false,
    }
}

/// `recv.shape`, `recv.size()`, `*recv.shape`: the code of `recv`.
fn shape_source(expr: &Expr, text: &str) -> Option<String> {
    let base = shape_source_expr(expr)?;
    Some(collapse_code(
        text.get(base.range().to_std_range()).unwrap_or(""),
    ))
}

/// The tensor whose whole shape a size argument is: `x` in `x.shape`, `*x.shape`, `x.size()`.
pub(super) fn shape_source_expr(expr: &Expr) -> Option<&Expr> {
    let inner = match expr {
        Expr::Starred(s) => &*s.value,
        other => other,
    };
    match inner {
        Expr::Attribute(a) if a.attr.id.as_str() == "shape" => Some(&*a.value),
        Expr::Call(c) if c.arguments.args.is_empty() => match &*c.func {
            Expr::Attribute(a) if a.attr.id.as_str() == "size" => Some(&*a.value),
            _ => None,
        },
        _ => None,
    }
}

/// The sizes an enlarger call (`x.expand(...)`, `x.repeat(...)`, `x.expand_as(y)`) asks for;
/// `recv_code` is the receiver's code, to tell `x.expand(x.shape)` (nothing grows) apart.
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
    // One plain size (`expand(batch_size)`, `expand(x.shape[0])`) is a 1-d result.
    if let [single] = elts.as_slice()
        && !matches!(single, Expr::NumberLiteral(_) | Expr::UnaryOp(_))
        && args.len() == 1
        && !is_one_size(single)
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

/// The sizes an enlargement may grow, as its arguments spell them: the counts of `repeat`/`tile`
/// other than 1, the sizes of `expand`/`broadcast_to` other than `-1`/`1` (an `expand` size equal
/// to the known source dim at its place does not grow), the count of `torch.cat([x] * n)` /
/// `torch.cat([x, x])`, the repeats of `repeat_interleave`. `*x.shape[1:]` of the receiver's own
/// tensor keeps its dims; a starred list of sizes held in one name is spelled as written
/// (`*batch_dims`). `None` when the arguments do not say (`expand_as(y)`, `expand(shape)`, a
/// starred size of another tensor).
pub(super) fn enlarger_growth(
    op: &str,
    args: &[&Expr],
    call: &ast::ExprCall,
    text: &str,
    recv_code: &str,
    source: Option<&Shape>,
) -> Option<Vec<SymExpr>> {
    match op {
        "cat" => {
            let first = call.arguments.args.first()?;
            return match first {
                Expr::List(l) => Some(vec![SymExpr::Num(l.elts.len() as i64)]),
                Expr::Tuple(l) => Some(vec![SymExpr::Num(l.elts.len() as i64)]),
                other => list_repeat_count(other).map(|n| vec![sym_expr(n, text)]),
            };
        }
        "repeat_interleave" => {
            let repeats = args.first().copied().or_else(|| keyword(call, "repeats"))?;
            return Some(vec![sym_expr(repeats, text)]);
        }
        "expand_as" => {
            let target = args.first()?;
            let code = collapse_code(text.get(target.range().to_std_range()).unwrap_or(""));
            return leading_growth(source, &format!("{code}.shape[0]"));
        }
        _ => {}
    }
    let mut elts = size_elements(args);
    if elts.is_empty()
        && let Some(size) = keyword(call, "size").or_else(|| keyword(call, "dims"))
    {
        elts = vec![size];
    }
    if elts.is_empty() {
        return None;
    }
    let view = matches!(op, "expand" | "broadcast_to");
    if view && elts.len() == 1 && !is_one_size(elts[0]) {
        let whole = elts[0];
        let first = match shape_source(whole, text) {
            Some(tensor) => format!("{tensor}.shape[0]"),
            None => format!(
                "{}[0]",
                collapse_code(text.get(whole.range().to_std_range()).unwrap_or(""))
            ),
        };
        return leading_growth(source, &first);
    }
    // The receiver's own tensor: `x` of `x[:1]`, `x.unsqueeze(0)`.
    let own = match recv_code.find(['(', '[']) {
        Some(cut) if recv_code[cut..].starts_with('(') => recv_code[..cut]
            .rsplit_once('.')
            .map_or("", |(base, _)| base),
        Some(cut) => &recv_code[..cut],
        None => recv_code,
    };
    let aligned = source.filter(|s| view && s.rank() == elts.len());
    let mut grown = Vec::new();
    for (i, e) in elts.iter().enumerate() {
        if let Expr::Starred(starred) = e {
            match shape_source(e, text).or_else(|| starred_shape_slice(e, text)) {
                Some(base) if !own.is_empty() && base == own => continue,
                Some(_) => return None,
                // A list of sizes held in one name (`*batch_dims`): spelled as written.
                None if matches!(&*starred.value, Expr::Name(_) | Expr::Attribute(_)) => {
                    let code = text.get(e.range().to_std_range()).unwrap_or("");
                    grown.push(SymExpr::Opaque(collapse_code(code)));
                    continue;
                }
                None => return None,
            }
        }
        if is_literal_int(e, 1) || (view && is_literal_int(e, -1)) {
            continue;
        }
        let size = sym_expr(e, text);
        if aligned.is_some_and(|s| matches!(&s.0[i], Dim::Size(d) if *d == size)) {
            continue;
        }
        grown.push(size);
    }
    Some(grown)
}

/// The growth of a broadcast to another tensor's whole shape (`expand_as(y)`, `expand(y.size())`,
/// `expand(shape)`) when the source's shape says which dim can grow: a source whose only size-1
/// dim is its leading one, every other dim a known size (`x.unsqueeze(0)` of a 1-d `x`), grows
/// that leading dim alone, to the target's first size (`first`). `None` otherwise: a source of
/// unknown rank or with an unknown dim could grow anywhere.
fn leading_growth(source: Option<&Shape>, first: &str) -> Option<Vec<SymExpr>> {
    let (lead, rest) = source?.0.split_first()?;
    let rest_known = rest
        .iter()
        .all(|d| matches!(d, Dim::Size(e) if *e != SymExpr::Num(1)));
    (lead.is_one() && rest_known).then(|| vec![SymExpr::Opaque(first.to_string())])
}

/// `*x.shape[1:]`, `*x.size()[1:]`: the code of `x`.
fn starred_shape_slice(expr: &Expr, text: &str) -> Option<String> {
    let Expr::Starred(s) = expr else { return None };
    let Expr::Subscript(sub) = &*s.value else {
        return None;
    };
    if !matches!(&*sub.slice, Expr::Slice(_)) {
        return None;
    }
    shape_source(&sub.value, text)
}

/// `n`, `batch_size`, `x.shape[0]`, `x.size(0)`, `len(xs)`, `b * n`: an expression that is one
/// size rather than a whole shape (`shape`, `x.shape[1:]`, `(b, 1) + s`).
fn is_one_size(expr: &Expr) -> bool {
    match expr {
        Expr::NumberLiteral(_) => true,
        Expr::Name(_) | Expr::Attribute(_) => {
            let name = match expr {
                Expr::Name(n) => n.id.as_str(),
                Expr::Attribute(a) => a.attr.id.as_str(),
                _ => return false,
            };
            let name = name.to_ascii_lowercase();
            let last = name.rsplit('_').next().unwrap_or(&name);
            !(matches!(name.as_str(), "size" | "sz" | "dims" | "dim")
                || matches!(last, "shape" | "shapes" | "sizes" | "dims")
                || name.ends_with("shape"))
        }
        // `x.shape[0]`, `sizes[i]`: one element.
        Expr::Subscript(s) => !matches!(&*s.slice, Expr::Slice(_) | Expr::Tuple(_)),
        // `x.size(0)`, `len(xs)`, `int(n)`.
        Expr::Call(c) => match &*c.func {
            Expr::Attribute(a) => a.attr.id.as_str() == "size" && c.arguments.args.len() == 1,
            Expr::Name(n) => matches!(n.id.as_str(), "len" | "int"),
            _ => false,
        },
        Expr::BinOp(b) => {
            matches!(
                b.op,
                Operator::Mult | Operator::FloorDiv | Operator::Sub | Operator::Add
            ) && is_one_size(&b.left)
                && is_one_size(&b.right)
                && !matches!(&*b.left, Expr::Tuple(_) | Expr::List(_))
        }
        _ => false,
    }
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
    let (source, known) = match source {
        Some(s) => (s, true),
        None if !unit_dims.is_empty() => {
            let mut dims = vec![Dim::Unknown; k];
            for &u in unit_dims {
                let pos = if u < 0 { k as i64 + u } else { u };
                dims[usize::try_from(pos).ok().filter(|p| *p < k)?] = Dim::Size(SymExpr::Num(1));
            }
            assumed = Shape(dims);
            (&assumed, false)
        }
        None => return None,
    };
    let r = source.rank();
    // A repeat that adds leading dims could be misaligned with a guessed rank: with the rank
    // assumed, only same-rank repeats are suggested. Of a source whose shape is known
    // (`torch.eye(h).repeat(n, 1, 1)`), the added dims are new size-1 dims: `expand` makes them.
    if k < r || (k != r && !known) {
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
        // `[x, x]`, `(x, x)`: the same name written out each time.
        Expr::List(ast::ExprList { elts, .. }) | Expr::Tuple(ast::ExprTuple { elts, .. })
            if elts.len() >= 2 =>
        {
            let first = text.get(elts[0].range().to_std_range())?;
            elts[1..]
                .iter()
                .all(|e| text.get(e.range().to_std_range()) == Some(first))
                .then(|| &elts[0])
                .filter(|e| matches!(e, Expr::Name(_) | Expr::Attribute(_)))
        }
        _ => None,
    }
}

/// `[x] * n`, `n * (x,)`: the count `n`.
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

/// The length of `torch.arange(n)` (`n`), `torch.arange(start, stop)` (`stop - start`, written
/// `n` for `arange(1, n + 1)` and `arange(0, n)`) or `torch.arange(start, stop, k)` with a
/// positive integer step (`ceil((stop - start) / k)`, as `(stop - start + k - 1) // k`); the
/// `start=`/`end=`/`step=` keywords count as written positionally. Any other step (a name, a
/// float, a negative number) still gives one dim, of unknown size.
pub(super) fn arange_dim(args: &[&Expr], call: &ast::ExprCall, text: &str) -> Option<Dim> {
    let (start, end, step) = match args {
        [end] => (keyword(call, "start"), Some(*end), keyword(call, "step")),
        [start, end] => (Some(*start), Some(*end), keyword(call, "step")),
        [start, end, step] => (Some(*start), Some(*end), Some(*step)),
        [] => (
            keyword(call, "start"),
            keyword(call, "end"),
            keyword(call, "step"),
        ),
        _ => return None,
    };
    let end = sym_expr(end?, text);
    let length = match start.map(|s| sym_expr(s, text)) {
        None | Some(SymExpr::Num(0)) => end,
        Some(SymExpr::Num(k)) => match end {
            SymExpr::Num(n) => SymExpr::Num((n - k).max(0)),
            SymExpr::Add(n, one) if *one == SymExpr::Num(k) => *n,
            end => SymExpr::Sub(Box::new(end), Box::new(SymExpr::Num(k))),
        },
        Some(start) => SymExpr::Sub(Box::new(end), Box::new(start)),
    };
    let Some(step) = step else {
        return Some(Dim::Size(length));
    };
    Some(match (literal_int(step), length) {
        (Some(1), length) => Dim::Size(length),
        (Some(k), SymExpr::Num(n)) if k > 1 => Dim::Size(SymExpr::Num((n + k - 1) / k)),
        (Some(k), length) if k > 1 => Dim::Size(SymExpr::FloorDiv(
            Box::new(SymExpr::Add(
                Box::new(length),
                Box::new(SymExpr::Num(k - 1)),
            )),
            Box::new(SymExpr::Num(k)),
        )),
        _ => Dim::Unknown,
    })
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

/// The shape `repeat_interleave` makes when its repeats do not say the sizes (a tensor of per-row
/// counts: a ragged result). `args` are the arguments after the tensor (`repeats`, `dim`). With a
/// `dim`, the source's shape with that dim grown; without one, the input is flattened: a 1-d
/// result, told only for a source of at most one dim (a larger one flattens to its element count
/// times the repeats). The grown dim is `output_size=` when given.
pub(super) fn repeat_interleave_shape(
    args: &[&Expr],
    call: &ast::ExprCall,
    source: Option<&Shape>,
    text: &str,
) -> Option<Shape> {
    let source = source?;
    let grown = keyword(call, "output_size").map_or(Dim::Unknown, |n| Dim::Size(sym_expr(n, text)));
    match args.get(1).copied().or_else(|| keyword(call, "dim")) {
        None if source.rank() <= 1 => Some(Shape(vec![grown])),
        None => None,
        Some(dim) => {
            let rank = source.rank() as i64;
            let d = literal_int(dim)?;
            let at = if d < 0 { d + rank } else { d };
            if !(0..rank).contains(&at) {
                return None;
            }
            let mut dims = source.0.clone();
            dims[at as usize] = grown;
            Some(Shape(dims))
        }
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
        // A line continuation joins the lines; the backslash is not code.
        let line = line.trim().trim_end_matches('\\').trim_end();
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

/// The elements of an enlarger's size arguments: `repeat(1, 2)`, `repeat((1, 2))`.
fn size_elements<'e>(args: &[&'e Expr]) -> Vec<&'e Expr> {
    match args {
        [Expr::Tuple(t)] => t.elts.iter().collect(),
        [Expr::List(t)] => t.elts.iter().collect(),
        many => many.to_vec(),
    }
}

/// Whether `expr` is a count of 1: the literal, a name `is_one_name` knows to be 1, or a repeated
/// sequence of ones (`[1] * n`, `(1,) * k`, `*[1] * n`).
fn is_one_count(expr: &Expr, is_one_name: &dyn Fn(&str) -> bool) -> bool {
    match expr {
        Expr::Name(n) => is_one_name(n.id.as_str()),
        Expr::Starred(s) => is_one_count(&s.value, is_one_name),
        Expr::BinOp(b) if b.op == Operator::Mult => {
            let ones_seq = |e: &Expr| match e {
                Expr::List(l) => l.elts.iter().all(|x| is_one_count(x, is_one_name)),
                Expr::Tuple(t) => t.elts.iter().all(|x| is_one_count(x, is_one_name)),
                _ => false,
            };
            ones_seq(&b.left) || ones_seq(&b.right)
        }
        Expr::Tuple(t) => t.elts.iter().all(|x| is_one_count(x, is_one_name)),
        Expr::List(t) => t.elts.iter().all(|x| is_one_count(x, is_one_name)),
        other => is_literal_int(other, 1),
    }
}

/// `repeat`/`tile` whose every count is 1, however spelled (`repeat(1, *[1] * k)`,
/// `repeat((1,) * k)`, a module constant equal to 1): the copy has the source's shape.
pub(super) fn repeat_counts_all_one(args: &[&Expr], is_one_name: &dyn Fn(&str) -> bool) -> bool {
    let elts = size_elements(args);
    !elts.is_empty() && elts.iter().all(|e| is_one_count(e, is_one_name))
}

/// `expand` arguments that each keep the source's own size: `-1`, or `recv.shape[i]` /
/// `recv.size(i)` at position `i` (`x.expand(x.size(0), -1)`).
pub(super) fn expand_keeps_own_dims(
    args: &[&Expr],
    recv_code: &str,
    rank: Option<usize>,
    text: &str,
) -> bool {
    let elts = size_elements(args);
    if rank.is_some_and(|r| r != elts.len()) {
        return false;
    }
    let n = elts.len() as i64;
    let own_dim = |e: &Expr| -> Option<i64> {
        let (base, index) = match e {
            Expr::Subscript(s) => match &*s.value {
                Expr::Attribute(a) if a.attr.id.as_str() == "shape" => {
                    (&*a.value, literal_int(&s.slice)?)
                }
                _ => return None,
            },
            Expr::Call(c) => match (&*c.func, c.arguments.args.first()) {
                (Expr::Attribute(a), Some(i))
                    if a.attr.id.as_str() == "size" && c.arguments.args.len() == 1 =>
                {
                    (&*a.value, literal_int(i)?)
                }
                _ => return None,
            },
            _ => return None,
        };
        (collapse_code(text.get(base.range().to_std_range()).unwrap_or("")) == recv_code)
            .then_some(if index < 0 { index + n } else { index })
    };
    !elts.is_empty()
        && elts
            .iter()
            .enumerate()
            .all(|(i, e)| is_literal_int(e, -1) || own_dim(e).is_some_and(|d| d == i as i64))
        && elts.iter().any(|e| !is_literal_int(e, -1))
}

/// Whether `expr` has the shape of the tensor written `other` by construction:
/// `torch.ones_like(y)`, an elementwise op or comparison with `y` as an operand (`y > 0`, `1 - y`),
/// a cast or unary method of `y` (`y.float()`, `y.abs()`). Such a value is never smaller than `y`,
/// so `expand_as(y)` of it keeps its shape.
pub(super) fn has_shape_of(expr: &Expr, other: &str, text: &str) -> bool {
    let code = |e: &Expr| collapse_code(text.get(e.range().to_std_range()).unwrap_or(""));
    match expr {
        Expr::Call(c) => match &*c.func {
            Expr::Attribute(a) if a.attr.id.as_str().ends_with("_like") => {
                c.arguments.args.first().is_some_and(|y| code(y) == other)
            }
            Expr::Attribute(a) => {
                let name = a.attr.id.as_str();
                (super::torch_api::UNARY_ELEMENTWISE.contains(&name)
                    || super::facts::DType::from_cast_method(name).is_some()
                    || matches!(name, "to" | "type_as"))
                    && code(&a.value) == other
            }
            _ => false,
        },
        Expr::UnaryOp(u) => code(&u.operand) == other,
        Expr::BinOp(b) if b.op != Operator::MatMult => {
            code(&b.left) == other || code(&b.right) == other
        }
        Expr::Compare(c) => {
            code(&c.left) == other || c.comparators.iter().any(|e| code(e) == other)
        }
        _ => false,
    }
}

/// Whether `op(source, other)` is smaller than `target` (the expanded shape) and can be expanded
/// to it: at some dim the source is a literal 1 (or absent) where the target is not, and `other` is
/// 1 (or absent) there too; and `other` is 1 wherever the target is. Shapes align from the right.
pub(super) fn operand_lacks_grown_dims(source: &Shape, target: &Shape, other: &Shape) -> bool {
    let (k, r, o) = (target.rank(), source.rank(), other.rank());
    if r > k || o > k {
        return false;
    }
    let at = |s: &Shape, i: usize| -> Option<Dim> {
        let offset = k - s.rank();
        i.checked_sub(offset).map(|j| s.0[j].clone())
    };
    let is_one_or_absent = |d: &Option<Dim>| d.as_ref().is_none_or(Dim::is_one);
    let mut saves = false;
    for i in 0..k {
        let t = &target.0[i];
        let (s, x) = (at(source, i), at(other, i));
        if t.is_one() && !is_one_or_absent(&x) {
            return false;
        }
        if !t.is_one() && is_one_or_absent(&s) && is_one_or_absent(&x) {
            saves = true;
        }
    }
    saves
}
