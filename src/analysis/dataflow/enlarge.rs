//! Enlargers (`expand`, `broadcast_to`, `repeat`, `tile`, `torch.cat([x] * n)`) start a chain;
//! view ops extend it or end it when they must copy. A `repeat` whose source dims are known to be
//! 1 also becomes a repeat-as-expand candidate, judged by how its result is read.

use std::rc::Rc;

use crate::source::ast::{self, Expr};
use crate::source::{Ranged, TextRange};

use crate::analysis::SinkKind;
use crate::analysis::census::{Enlargement, SkipReason, SkippedConversion};
use crate::analysis::facts::{
    Dim, EnlargeKind, Enlarged, Fact, Shape, Step, StepRole, SymExpr, ValueKind,
};
use crate::analysis::shape_infer::{
    SizeArg, Sizes, collapse_code, enlarger_growth, enlarger_sizes, expand_keeps_own_dims,
    expand_shape, flatten_merges, has_shape_of, keyword, literal_int, repeat_as_expand_args,
    repeat_counts_all_one, repeat_interleave_shape, repeat_shape, shape_source_expr,
    size_arg_count, view_shape,
};

use super::expr::UseCtx;
use super::may_unit;
use super::stmt::{Walker, dotted_key};
use super::{InterleavedDim, RepeatCandidate};

impl Walker<'_, '_> {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn enlarge(
        &mut self,
        recv_expr: &Expr,
        recv: Fact,
        kind: EnlargeKind,
        op: &str,
        args: &[&Expr],
        arg_facts: &[Fact],
        call: &ast::ExprCall,
        range: TextRange,
        code: TextRange,
        ctx: UseCtx,
    ) -> Fact {
        let text = self.fs.text;
        // `re.Match.expand(r"\1")`, `str`-taking APIs: not a tensor.
        if args
            .iter()
            .any(|a| matches!(a, Expr::StringLiteral(_) | Expr::FString(_)))
            || recv.is_not_tensor()
        {
            return Fact::unknown();
        }
        // `x.repeat(3, -3)`: torch's repeat counts are sizes (a negative one raises), so a
        // negative literal is numpy's `repeat(repeats, axis)` of an array, not a torch copy.
        if matches!(op, "repeat" | "tile")
            && args.iter().any(|a| literal_int(a).is_some_and(|v| v < 0))
        {
            return Fact::unknown();
        }
        let raw_code = collapse_code(text.get(recv_expr.range().to_std_range()).unwrap_or(""));
        let recv_code = if matches!(
            recv_expr,
            Expr::Name(_)
                | Expr::Attribute(_)
                | Expr::Call(_)
                | Expr::Subscript(_)
                | Expr::NumberLiteral(_)
                | Expr::List(_)
                | Expr::Tuple(_)
        ) {
            raw_code.clone()
        } else {
            // `(a - b).expand(...)`: the receiver keeps its parentheses when a method follows it.
            format!("({raw_code})")
        };
        // `repeat_interleave(n, dim=d)` changes dim `d` alone (`axis=` is torch's alias of `dim`).
        // Without a dim, torch flattens the input and repeats each element: the result is 1-D,
        // and its one dim is the grown one (a `cumsum` along it does not commute).
        if op == "repeat_interleave" {
            let dim = args
                .get(1)
                .copied()
                .or_else(|| keyword(call, "dim"))
                .or_else(|| keyword(call, "axis"));
            let grown = match dim {
                Some(d) => literal_int(d).map(InterleavedDim::Dim),
                None => Some(InterleavedDim::Flat),
            };
            if let Some(d) = grown {
                self.fs
                    .interleave_dims
                    .insert((range.start().to_u32(), range.end().to_u32()), d);
            }
        }
        let keeps_shape = match op {
            "repeat" | "tile" => repeat_counts_all_one(args, &|name| {
                !self.env.contains_key(name) && self.fs.global_ones.contains(name)
            }),
            "expand" => {
                expand_keeps_own_dims(args, &raw_code, recv.shape.as_ref().map(Shape::rank), text)
            }
            // A count every call of the project passes as 1 (see `call_constants`).
            "repeat_interleave" => args
                .first()
                .copied()
                .or_else(|| keyword(call, "repeats"))
                .is_some_and(|count| {
                    matches!(count, Expr::Name(n)
                        if self.env.get(n.id.as_str()).and_then(|f| f.int_value) == Some(1))
                }),
            "expand_as" => args.first().is_some_and(|other| {
                let other = collapse_code(text.get(other.range().to_std_range()).unwrap_or(""));
                has_shape_of(recv_expr, &other, text)
            }),
            _ => false,
        };
        let sizes = if keeps_shape {
            Sizes::NotEnlarging
        } else {
            match enlarger_sizes(op, args, call, text, &recv_code) {
                Sizes::Unknown if matches!(op, "expand" | "broadcast_to") => {
                    self.sizes_plus_shape(args).unwrap_or(Sizes::Unknown)
                }
                sizes => sizes,
            }
        };
        // Counts held in names of a known value (`t = probe.shape[1]`); a repeat whose counts
        // all turn out to be 1 copies nothing larger.
        let sizes = match self.with_known_counts(sizes) {
            Sizes::Dims(dims)
                if matches!(op, "repeat" | "tile")
                    && dims
                        .iter()
                        .all(|d| matches!(d, SizeArg::Size(SymExpr::Num(1)))) =>
            {
                Sizes::NotEnlarging
            }
            sizes => sizes,
        };
        let new_shape = match &sizes {
            Sizes::NotEnlarging => {
                if let Some(name) = self.project_fixed_count(args, call) {
                    self.record_enlargement(kind, op, None, range, code, true);
                    if let Some(e) = self.fs.enlargements.last_mut()
                        && e.range == range
                    {
                        e.fixed_count = Some(name);
                    }
                }
                return Fact {
                    enlarged: recv.enlarged.clone(),
                    sink_results: recv.sink_results.clone(),
                    kind: ValueKind::Tensor,
                    ..recv
                };
            }
            Sizes::Dims(dims) => match kind {
                EnlargeKind::View => expand_shape(dims, recv.shape.as_ref()),
                EnlargeKind::Copy => repeat_shape(op, dims, recv.shape.as_ref()),
            },
            Sizes::LikeOther => {
                let target = if op == "expand_as" {
                    args.first().copied()
                } else {
                    args.first().and_then(|a| shape_source_expr(a))
                };
                if let Some(key) = target.and_then(dotted_key) {
                    self.fs
                        .expand_targets
                        .insert((range.start().to_u32(), range.end().to_u32()), key);
                }
                if op == "expand_as" {
                    arg_facts.first().and_then(|f| f.shape.clone())
                } else {
                    // `expand(x.shape)`, `expand(*x.shape)`: the shape of `x` when it is known.
                    args.first()
                        .and_then(|a| shape_source_expr(a))
                        .and_then(dotted_key)
                        .and_then(|key| self.env.get(&key))
                        .and_then(|f| f.shape.clone())
                }
            }
            Sizes::Unknown if op == "repeat_interleave" => {
                repeat_interleave_shape(args, call, recv.shape.as_ref(), text)
            }
            Sizes::Unknown => None,
        };
        if let (EnlargeKind::View, Sizes::Dims(dims), Some(src)) =
            (kind, &sizes, recv.shape.as_ref())
            && dims.len() == src.rank()
            && dims.iter().zip(&src.0).all(|(d, s)| match d {
                SizeArg::Keep => true,
                SizeArg::Size(e) => matches!(s, Dim::Size(se) if se == e),
            })
        {
            // Same shape as the source: a no-op view.
            self.record_enlargement(kind, op, None, range, code, true);
            return Fact {
                kind: ValueKind::Tensor,
                ..recv
            };
        }
        let growth_now = enlarger_growth(op, args, call, text, &raw_code, recv.shape.as_ref());
        let (mut fact, enlarged, code) = self.enlarged_fact(
            recv_expr,
            &recv,
            kind,
            op,
            new_shape.clone(),
            range,
            code,
            recv_code,
            growth_now,
        );
        // A copy of size-1 dims that `expand` could be (OOM121, once its readers are known).
        let expand_args = match (op, &sizes) {
            ("repeat", Sizes::Dims(dims)) => {
                repeat_as_expand_args(dims, recv.shape.as_ref(), &recv.unit_dims)
            }
            // `tile` pads its counts on the left: only a known rank tells where they go.
            ("tile", Sizes::Dims(dims)) if recv.shape.is_some() => {
                repeat_as_expand_args(dims, recv.shape.as_ref(), &[])
            }
            ("repeat_interleave", _) => {
                interleave_as_expand_args(args, arg_facts, call, &recv, &raw_code, text)
            }
            // A 0-d source (`x.mean()`): every dim of the result is a new dim of size 1, whatever
            // the counts (`repeat(specgrams.shape)`), so `expand` takes them as written.
            ("repeat" | "tile", _) if recv.shape.as_ref().is_some_and(|s| s.rank() == 0) => {
                written_args(args, text)
            }
            _ => None,
        };
        // Dims of unknown size: a candidate "if they are 1" (never for `tile`, whose counts
        // align on the right).
        let (expand_args, may_if) = match expand_args {
            Some(args) => (Some(args), None),
            None => {
                let may = match op {
                    "repeat" => may_unit::repeat(&sizes, call, &recv, &raw_code),
                    "repeat_interleave" => {
                        may_unit::repeat_interleave(args, arg_facts, call, &recv, &raw_code, text)
                    }
                    _ => None,
                };
                match may {
                    Some(m) => (Some(m.expand_args), Some(m.condition)),
                    None => (None, None),
                }
            }
        };
        if let Some(expand_args) = expand_args {
            let key = (range.start().to_u32(), range.end().to_u32());
            let id = match self.fs.repeat_index.get(&key) {
                Some(&id) => id,
                None => {
                    let id = self.fs.repeats.len() as u32;
                    let constants = self.constants_read(new_shape.as_ref(), None);
                    self.fs.repeats.push(RepeatCandidate {
                        enlarged,
                        range,
                        receiver: recv_expr.range(),
                        scope_range: self.scope_range,
                        code,
                        stmt_range: self.stmt_range,
                        expand_args,
                        may_if,
                        full_operand: false,
                        number_operand: None,
                        dtype: recv.dtype,
                        shape: new_shape,
                        broadcast_use: false,
                        pointwise_use: false,
                        concat_use: false,
                        index_use: false,
                        table_join: false,
                        read_through: None,
                        other_use: false,
                        returned: false,
                        helper: None,
                        constants,
                    });
                    self.fs.repeat_index.insert(key, id);
                    id
                }
            };
            fact.repeat_candidate = Some(id);
            self.record_use(&fact, ctx);
        }
        fact
    }

    /// `expand((bsz, heads) + mask.shape)`: the written sizes, then those of a tensor whose shape
    /// is known here (its unknown dims kept from the source).
    fn sizes_plus_shape(&self, args: &[&Expr]) -> Option<Sizes> {
        let [Expr::BinOp(b)] = args else { return None };
        if b.op != ast::Operator::Add {
            return None;
        }
        fn written(e: &Expr) -> Option<Vec<&Expr>> {
            match e {
                Expr::Tuple(t) => Some(t.elts.iter().collect()),
                Expr::List(l) => Some(l.elts.iter().collect()),
                _ => None,
            }
        }
        let known = |e: &Expr| {
            let key = dotted_key(shape_source_expr(e)?)?;
            self.env.get(&key)?.shape.clone()
        };
        let text = self.fs.text;
        let of_written = |elts: Vec<&Expr>| -> Vec<SizeArg> {
            elts.into_iter()
                .map(|e| match literal_int(e) {
                    Some(-1) => SizeArg::Keep,
                    _ => SizeArg::Size(crate::analysis::shape_infer::sym_expr(e, text)),
                })
                .collect()
        };
        let of_shape = |s: Shape| -> Vec<SizeArg> {
            s.0.into_iter()
                .map(|d| match d {
                    Dim::Size(e) => SizeArg::Size(e),
                    Dim::Unknown => SizeArg::Keep,
                })
                .collect()
        };
        let (mut dims, rest) = match (written(&b.left), written(&b.right)) {
            (Some(l), None) => (of_written(l), of_shape(known(&b.right)?)),
            (None, Some(r)) => (of_shape(known(&b.left)?), of_written(r)),
            _ => return None,
        };
        dims.extend(rest);
        Some(Sizes::Dims(dims))
    }

    /// The fact of `op` enlarging `recv` to `new_shape`: the chain one step longer, a repeated
    /// copy's reads tracked from here. Also the enlargement and the step's code.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn enlarged_fact(
        &mut self,
        recv_expr: &Expr,
        recv: &Fact,
        kind: EnlargeKind,
        op: &str,
        new_shape: Option<Shape>,
        range: TextRange,
        code: TextRange,
        recv_code: String,
        growth_now: Option<Vec<SymExpr>>,
    ) -> (Fact, Enlarged, String) {
        if let Some(source) = &recv.shape {
            self.fs.enlarge_sources.insert(
                (range.start().to_u32(), range.end().to_u32()),
                source.clone(),
            );
        }
        let mut steps = recv
            .enlarged
            .as_ref()
            .map(|e| e.steps.clone())
            .unwrap_or_default();
        self.record_enlargement(kind, op, new_shape.clone(), range, code, false);
        let code = self.fs.code(code);
        steps.push(Step {
            role: StepRole::Enlarge,
            file: None,
            range,
            code: code.clone(),
            receiver: Some(recv_expr.range()),
            stmt: self.stmt_range,
        });
        let receiver_code = recv
            .enlarged
            .as_ref()
            .map(|e| e.receiver_code.clone())
            .unwrap_or(recv_code);
        let growth = match &recv.enlarged {
            Some(e) => e.growth.clone(),
            None => Some(Vec::new()),
        }
        .zip(growth_now)
        .map(|(mut before, now)| {
            before.extend(now);
            before
        });
        // Each count the enlargement grows by that was read off a tensor's leading size.
        let mut leading_sizes = recv
            .enlarged
            .as_ref()
            .map(|e| e.leading_sizes.clone())
            .unwrap_or_default();
        for grown in growth.iter().flatten() {
            if let SymExpr::Var(name) = grown
                && let Some(size) = self
                    .env
                    .get(name)
                    .and_then(|f| f.leading_size_of.as_deref())
                && !leading_sizes.iter().any(|(n, _)| n == name)
            {
                leading_sizes.push((name.clone(), size.to_string()));
            }
        }
        let enlarged = Enlarged {
            growth,
            leading_sizes,
            kind,
            op: op.to_string(),
            steps,
            shape: new_shape.clone(),
            receiver_code,
            may: recv.enlarged.as_ref().is_some_and(|e| e.may),
            copy_origin: match kind {
                EnlargeKind::View => None,
                EnlargeKind::Copy => {
                    let key = (range.start().to_u32(), range.end().to_u32());
                    let next = self.fs.copy_uses.len() as u32;
                    let id = *self.fs.copy_index.entry(key).or_insert(next);
                    if id == next {
                        self.fs.copy_uses.push(Vec::new());
                    }
                    Some(id)
                }
            },
        };
        let fact = Fact {
            kind: ValueKind::Tensor,
            dtype: recv.dtype,
            shape: new_shape.clone(),
            enlarged: Some(Rc::new(enlarged.clone())),
            sink_results: if kind == EnlargeKind::View {
                recv.sink_results.clone()
            } else {
                Vec::new()
            },
            repeat_candidate: None,
            helper_calls: Vec::new(),
            unit_dims: Vec::new(),
            placement: recv.placement,
            dtype_sym: recv.dtype_sym.clone(),
            copy_bypass: Vec::new(),
            leading_size_of: None,
            int_value: None,
            device_sym: recv.device_sym.clone(),
        };
        (fact, enlarged, code)
    }

    /// A view op: an enlarged value stays enlarged (one more chain step) unless the op merges
    /// its dims, which needs a copy.
    pub(super) fn view_step(
        &mut self,
        recv: Fact,
        op: &str,
        args: &[&Expr],
        range: TextRange,
        code: TextRange,
    ) -> Fact {
        let text = self.fs.text;
        let new_shape =
            view_shape(op, args, recv.shape.as_ref(), text).map(|s| self.with_known_dims(s));
        let Some(enlarged) = recv.enlarged.clone() else {
            if !recv.sink_results.is_empty()
                && matches!(op, "view" | "reshape" | "flatten")
                && let Some(rank) = merge_rank(op, args, recv.shape.as_ref())
            {
                // A view of a full-size copy that merges its dims: the copy was made for this
                // layout.
                self.mark_merged(&recv.sink_results, rank);
            }
            let unit_dims = match (op, &recv.shape, args.first()) {
                ("unsqueeze", None, Some(arg)) => literal_int(arg)
                    .map(|d| unsqueeze_unit_dims(&recv.unit_dims, d))
                    .unwrap_or_default(),
                _ => Vec::new(),
            };
            return Fact {
                kind: if recv.kind == ValueKind::Unknown {
                    ValueKind::Unknown
                } else {
                    ValueKind::Tensor
                },
                shape: new_shape,
                repeat_candidate: None,
                unit_dims,
                ..recv
            };
        };
        // A repeated copy is contiguous: every view op of it is free, whatever it merges.
        if matches!(op, "view" | "reshape" | "flatten") && enlarged.kind == EnlargeKind::View {
            let in_rank = recv.shape.as_ref().map(Shape::rank);
            let merges = match op {
                "flatten" => flatten_merges(args, in_rank),
                _ => match (size_arg_count(args), in_rank) {
                    (Some(out), Some(inp)) => {
                        Some(out < inp || fewer_non_unit_dims(args, recv.shape.as_ref()))
                    }
                    _ => None,
                },
            };
            match merges {
                Some(false) => {}
                Some(true) if op != "view" && enlarged.kind == EnlargeKind::View => {
                    // reshape/flatten of a broadcast view across its stride-0 dims copies it.
                    let out = self.sink(&recv, SinkKind::Materialize, range, code, recv.dtype);
                    let rank = merge_rank(op, args, recv.shape.as_ref()).flatten();
                    self.mark_merged(&out.sink_results, rank);
                    return Fact {
                        shape: new_shape,
                        ..out
                    };
                }
                // A merging `view` fails or needs the copy anyway; unknown ranks end the chain.
                _ => return Fact::tensor(recv.dtype, new_shape).placed_like(&recv),
            }
        }
        let mut e = (*enlarged).clone();
        e.steps.push(Step {
            role: StepRole::View,
            file: None,
            range,
            code: self.fs.code(code),
            receiver: None,
            stmt: self.stmt_range,
        });
        e.shape = new_shape.clone();
        Fact {
            kind: ValueKind::Tensor,
            shape: new_shape,
            enlarged: Some(Rc::new(e)),
            ..recv
        }
    }
}

impl Walker<'_, '_> {
    fn mark_merged(&mut self, sites: &[crate::analysis::facts::SiteId], rank: Option<usize>) {
        for id in sites {
            if let Some(site) = self.fs.sites.get_mut(*id as usize)
                && site.sink == SinkKind::Materialize
            {
                site.merged_later = true;
                site.merged_rank = site.merged_rank.or(rank);
            }
        }
    }
}

/// When `op(args)` on a tensor of `in_rank` dims merges dims: `Some(rank after)` (the inner
/// `None` when that rank is not known). A flatten to one dim (`view(-1)`, `flatten()`) merges
/// whatever the rank; otherwise an unknown input rank tells nothing.
fn merge_rank(op: &str, args: &[&Expr], shape: Option<&Shape>) -> Option<Option<usize>> {
    let in_rank = shape.map(Shape::rank);
    let flat = match (op, args) {
        ("flatten", []) => true,
        ("view" | "reshape", [one]) => literal_int(one) == Some(-1),
        _ => false,
    };
    if flat {
        return (in_rank != Some(1)).then_some(Some(1));
    }
    let in_rank = in_rank?;
    match op {
        "flatten" => flatten_merges(args, Some(in_rank))?.then_some(None),
        _ => {
            let out = size_arg_count(args)?;
            (out < in_rank || fewer_non_unit_dims(args, shape)).then_some(Some(out))
        }
    }
}

/// `reshape(b, h, 1, s)` of `[b, g, h // g, s]`: as many dims, but fewer that are not a literal 1,
/// so two of the source's dims were merged.
fn fewer_non_unit_dims(args: &[&Expr], shape: Option<&Shape>) -> bool {
    let Some(shape) = shape else { return false };
    let elts: Vec<&Expr> = match args {
        [Expr::Tuple(t)] => t.elts.iter().collect(),
        [Expr::List(t)] => t.elts.iter().collect(),
        many => many.to_vec(),
    };
    let out = elts.iter().filter(|e| literal_int(e) != Some(1)).count();
    let inp = shape.0.iter().filter(|d| !d.is_one()).count();
    out < inp
}

/// The dims known to be 1 after `unsqueeze(d)` of a value of unknown rank whose dims `units`
/// were known to be 1 (`x.unsqueeze(-1).unsqueeze(-1)`: the last two): the new dim, and the old
/// ones shifted past it (a dim counted from the same end as `d` moves by one when the new dim
/// lands between it and that end).
fn unsqueeze_unit_dims(units: &[i64], d: i64) -> Vec<i64> {
    let mut out: Vec<i64> = units
        .iter()
        .map(|&u| match (d < 0, u < 0) {
            (true, true) if u <= d => u - 1,
            (false, false) if u >= d => u + 1,
            _ => u,
        })
        .collect();
    out.push(d);
    out
}

/// The count as written and the dim of `repeat_interleave(n, dim=d)`, when they could be an
/// `expand`'s: the count must be a number (a tensor of per-row counts is not an `expand` size),
/// and the dim must be given (without it the result is flattened).
pub(super) fn interleave_count_dim<'e>(
    args: &[&'e Expr],
    arg_facts: &[Fact],
    call: &'e ast::ExprCall,
    text: &str,
) -> Option<(&'e Expr, String, i64)> {
    let repeats = args.first().copied().or_else(|| keyword(call, "repeats"))?;
    if matches!(repeats, Expr::List(_) | Expr::Tuple(_))
        || is_sliced(repeats)
        || arg_facts
            .first()
            .is_some_and(|f| f.kind == ValueKind::Tensor)
    {
        return None;
    }
    let dim = literal_int(args.get(1).copied().or_else(|| keyword(call, "dim"))?)?;
    let count = collapse_code(text.get(repeats.range().to_std_range()).unwrap_or(""));
    Some((repeats, count, dim))
}

/// A slice (`splits[1:]`), or arithmetic on one (`splits[1:] - splits[:-1]`): never a Python int,
/// so as the repeats of `repeat_interleave` (an int or a tensor) it is a tensor of per-row counts.
pub(super) fn is_sliced(expr: &Expr) -> bool {
    match expr {
        Expr::Subscript(s) => match &*s.slice {
            Expr::Slice(_) => true,
            Expr::Tuple(t) => t.elts.iter().any(|e| matches!(e, Expr::Slice(_))),
            _ => false,
        },
        Expr::BinOp(b) => is_sliced(&b.left) || is_sliced(&b.right),
        _ => false,
    }
}

/// `expand` arguments that stretch dim `d` of a rank-`rank` tensor to `count`: `-1, n, -1`.
pub(super) fn stretch_args(rank: usize, d: usize, count: &str) -> String {
    (0..rank)
        .map(|i| if i == d { count } else { "-1" })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The arguments as written (`specgrams.shape`, `b, n`), or None when there are none.
fn written_args(args: &[&Expr], text: &str) -> Option<String> {
    let parts: Option<Vec<&str>> = args
        .iter()
        .map(|a| text.get(a.range().to_std_range()))
        .collect();
    parts.filter(|p| !p.is_empty()).map(|p| p.join(", "))
}

/// Where `repeat_interleave(n, dim=d)` stretches its source and the `expand` arguments that
/// stretch it the same way if that dim is 1: the dim counted from the front for a known shape;
/// for a source of unknown rank only `d` 0 or -1, the other dims spelled from its own shape.
pub(super) fn interleave_stretch(
    shape: Option<&Shape>,
    dim: i64,
    count: &str,
    recv_code: &str,
) -> Option<(i64, String)> {
    match shape {
        Some(shape) => {
            let rank = shape.rank() as i64;
            let d = if dim < 0 { rank + dim } else { dim };
            let args = stretch_args(shape.rank(), usize::try_from(d).ok()?, count);
            Some((d, args))
        }
        None => match dim {
            0 => Some((0, format!("{count}, *{recv_code}.shape[1:]"))),
            -1 => Some((-1, format!("*{recv_code}.shape[:-1], {count}"))),
            _ => None,
        },
    }
}

/// `repeat_interleave(n, dim=d)` of a dim known to be 1 is `n` copies of it: the `expand`
/// arguments that give the same values.
fn interleave_as_expand_args(
    args: &[&Expr],
    arg_facts: &[Fact],
    call: &ast::ExprCall,
    recv: &Fact,
    recv_code: &str,
    text: &str,
) -> Option<String> {
    let (_, count, dim) = interleave_count_dim(args, arg_facts, call, text)?;
    let (d, expand_args) = interleave_stretch(recv.shape.as_ref(), dim, &count, recv_code)?;
    let unit = match &recv.shape {
        Some(shape) => usize::try_from(d)
            .ok()
            .and_then(|i| shape.0.get(i))
            .is_some_and(Dim::is_one),
        None => recv.unit_dims.contains(&dim),
    };
    unit.then_some(expand_args)
}

impl Walker<'_, '_> {
    /// Notes an enlarger call for `oomlint sites` (once: loops and second walks revisit it).
    fn record_enlargement(
        &mut self,
        kind: EnlargeKind,
        op: &str,
        shape: Option<Shape>,
        range: TextRange,
        code: TextRange,
        same_shape: bool,
    ) {
        if !self
            .fs
            .enlargement_index
            .insert((range.start().to_u32(), range.end().to_u32()))
        {
            return;
        }
        let code = self.fs.code(code);
        self.fs.enlargements.push(Enlargement {
            range,
            kind,
            op: op.to_string(),
            code,
            shape,
            stmt: self.stmt_range,
            same_shape,
            fixed_count: None,
        });
    }

    /// A count of this call that is a parameter every call of the project passes as 1 (see
    /// `call_constants`).
    fn project_fixed_count(&self, args: &[&Expr], call: &ast::ExprCall) -> Option<String> {
        let fixed = self
            .fs
            .project_fixed
            .get(&self.scope_range.start().to_u32())?;
        args.iter()
            .copied()
            .chain(keyword(call, "repeats"))
            .find_map(|a| match a {
                Expr::Name(n) if fixed.iter().any(|f| f == n.id.as_str()) => Some(n.id.to_string()),
                _ => None,
            })
    }

    /// Notes a conversion of an enlarged value found to be a no-op (no site is made for it).
    pub(super) fn record_skip(&mut self, recv: &Fact, at: TextRange, why: SkipReason) {
        let Some(e) = &recv.enlarged else { return };
        let enlargers: Vec<TextRange> = e
            .steps
            .iter()
            .filter(|s| s.role == StepRole::Enlarge && s.file.is_none())
            .map(|s| s.range)
            .collect();
        let skip = SkippedConversion { enlargers, at, why };
        if !self.fs.skipped.contains(&skip) {
            self.fs.skipped.push(skip);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::unsqueeze_unit_dims;

    #[test]
    fn unit_dims_after_unsqueeze() {
        // (dims known to be 1 before, the unsqueeze argument, after)
        let cases: &[(&[i64], i64, &[i64])] = &[
            (&[], -1, &[-1]),
            // x.unsqueeze(-1).unsqueeze(-1): the last two.
            (&[-1], -1, &[-2, -1]),
            // x.unsqueeze(-1).unsqueeze(-2): the last two as well.
            (&[-1], -2, &[-1, -2]),
            // x.unsqueeze(-2).unsqueeze(-1): [..., 1, a, 1].
            (&[-2], -1, &[-3, -1]),
            (&[1], 1, &[2, 1]),
            (&[0], 2, &[0, 2]),
            // Counted from different ends: unchanged.
            (&[-1], 0, &[-1, 0]),
            (&[1], -1, &[1, -1]),
        ];
        for (before, d, after) in cases {
            assert_eq!(
                unsqueeze_unit_dims(before, *d),
                *after,
                "{before:?} unsqueeze({d})"
            );
        }
    }
}
