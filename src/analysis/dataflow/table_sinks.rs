//! Sinks the op table knows (`analysis::op_table`): pointwise math (`torch.cos`, `F.softplus`),
//! ops along a dim (`softmax`, `F.normalize`, `cumsum`), resampling (`F.interpolate`, `F.fold`)
//! and modules built in `__init__` called on an enlarged value (`self.proj(x)` with `self.proj =
//! nn.Linear(...)`), each acting as its functional form.

use crate::source::Ranged;
use crate::source::TextRange;
use crate::source::ast::{self, Expr};

use crate::analysis::SinkKind;
use crate::analysis::facts::{Dim, Fact, Placement, StepRole, ValueKind};
use crate::analysis::op_table::{self, OpInfo, OpKind, ResultDtype};
use crate::analysis::shape_infer::{keyword, literal_int};

use super::InterleavedDim;
use super::expr::UseCtx;
use super::stmt::Walker;

/// Which dims an op computes along (the reorder holds when none of them grew).
enum Along {
    /// Elementwise: none.
    Nothing,
    /// These dims (negative from the end).
    Dims(Vec<i64>),
    /// Every dim but the leading batch dim (convolutions, resampling).
    AllButBatch,
}

impl Walker<'_, '_> {
    /// Per dim of an enlarged value straight from its enlarger, whether it may have grown; None
    /// when not known (shapes unknown, or view steps after the enlarger). Without the source's
    /// shape, a broadcast view's dim kept as it was (`-1`, unknown here) did not grow and one
    /// given a size may have.
    fn grown_dims(&self, recv: &Fact) -> Option<Vec<bool>> {
        let e = recv.enlarged.as_ref()?;
        let last = e.steps.last()?;
        if last.role != StepRole::Enlarge {
            return None;
        }
        let key = (last.range.start().to_u32(), last.range.end().to_u32());
        let target = e.shape.as_ref()?;
        let Some(source) = self.fs.enlarge_sources.get(&key) else {
            return (e.kind == crate::analysis::facts::EnlargeKind::View).then(|| {
                target
                    .0
                    .iter()
                    .map(|d| matches!(d, Dim::Size(_)) && !d.is_one())
                    .collect()
            });
        };
        let (k, r) = (target.rank(), source.rank());
        if r > k {
            return None;
        }
        Some(
            (0..k)
                .map(|i| {
                    let s = i.checked_sub(k - r).map(|j| &source.0[j]);
                    !target.0[i].is_one()
                        && s.is_none_or(Dim::is_one)
                        && !matches!(target.0[i], Dim::Unknown)
                })
                .collect(),
        )
    }

    /// The one dim a `repeat_interleave` with a literal dim grew, when the value comes straight
    /// from it (a source of unknown rank: negative counts from the end).
    fn interleaved_dim(&self, recv: &Fact) -> Option<InterleavedDim> {
        let e = recv.enlarged.as_ref()?;
        let last = e.steps.last()?;
        if last.role != StepRole::Enlarge || e.steps.len() != 1 {
            return None;
        }
        let key = (last.range.start().to_u32(), last.range.end().to_u32());
        self.fs.interleave_dims.get(&key).copied()
    }

    /// Records the sink of a table op on the enlarged `recv`: none when it computes along a dim
    /// known to have grown (the values would differ after the reorder); a "may" site without a
    /// fix when which dims grew is not known.
    fn table_sink(
        &mut self,
        recv: &Fact,
        along: Along,
        range: TextRange,
        code: TextRange,
        result_dtype: Option<crate::analysis::facts::DType>,
    ) -> Option<Fact> {
        let grown = self.grown_dims(recv);
        let along_dim = !matches!(along, Along::Nothing);
        let doubt = match (&along, &grown) {
            (Along::Nothing, _) => false,
            (_, None) => match self.interleaved_dim(recv) {
                // A flat repeat's one dim grew: an op along a dim computes along it.
                Some(InterleavedDim::Flat) => return None,
                // Only dim `d` grew: the op computes along it (no reorder), or along other dims
                // only, counted from the same end.
                Some(InterleavedDim::Dim(d)) => match &along {
                    Along::Dims(dims) if dims.contains(&d) => return None,
                    Along::Dims(dims) => dims.iter().any(|a| (*a < 0) != (d < 0)),
                    Along::AllButBatch if d != 0 => return None,
                    _ => false,
                },
                None => true,
            },
            (Along::Dims(dims), Some(g)) => {
                let k = g.len() as i64;
                let mut doubt = false;
                for d in dims {
                    let at = if *d < 0 { d + k } else { *d };
                    match usize::try_from(at).ok().and_then(|i| g.get(i)) {
                        Some(true) => return None,
                        Some(false) => {}
                        None => doubt = true,
                    }
                }
                doubt
            }
            (Along::AllButBatch, Some(g)) => {
                if g.iter().skip(1).any(|grew| *grew) {
                    return None;
                }
                false
            }
        };
        let result = self.sink(recv, SinkKind::Elementwise, range, code, result_dtype);
        for id in &result.sink_results {
            if let Some(site) = self.fs.sites.get_mut(*id as usize) {
                site.along_dim |= along_dim;
                site.enlarged.may |= doubt;
            }
        }
        Some(result)
    }

    /// `x.cos()`, `x.softmax(-1)`, `x.cumsum(dim=1)` on an enlarged `x` with only number
    /// arguments: a sink by the op table. None when the table does not make it one.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn table_method_sink(
        &mut self,
        recv: &Fact,
        name: &str,
        call: &ast::ExprCall,
        arg_facts: &[Fact],
        range: TextRange,
        code: TextRange,
    ) -> Option<Fact> {
        recv.enlarged.as_ref()?;
        let op = op_table::method(name)?;
        let along = along_of(op, name, call, true)?;
        if !numbers_only(call, arg_facts) {
            return None;
        }
        let dtype = op.dtype.of_input(recv.dtype);
        self.table_sink(recv, along, range, code, dtype)
    }

    /// `torch.cos(x)`, `F.softplus(x)`, `F.normalize(x, dim=-1)`, `F.interpolate(x, size=s)` on
    /// an enlarged `x` (the first argument) with only numbers (or sizes) otherwise.
    pub(super) fn table_function_sink(
        &mut self,
        module: &str,
        name: &str,
        call: &ast::ExprCall,
        ctx: UseCtx,
    ) -> Option<Fact> {
        let op = op_table::function(module, name)?;
        let first = call.arguments.args.first()?;
        let along = along_of(op, name, call, false)?;
        // A pointwise unary function (`torch.sigmoid(z)`, `F.softplus(z)`, not `F.relu(z,
        // inplace=True)`) maps each element on its own: its result carries a repeated copy on.
        let maps = call_maps_elementwise(op, name, call);
        let recv = self.eval_with(first, if maps { UseCtx::Map } else { UseCtx::Other });
        let mapped_copy = recv.repeat_candidate.filter(|_| maps);
        let through = || format!("{module}.{name}()");
        let rest: Vec<Fact> = call.arguments.args[1..]
            .iter()
            .map(|a| self.eval(a))
            .collect();
        let kw = self.eval_keywords(call);
        if writes_in_place(call) {
            // `F.relu(x, inplace=True)` writes `x` and returns it: no new tensor, and a copy
            // it writes into is needed as a copy.
            self.mark_in_place(&recv);
            return Some(recv);
        }
        let plain = recv.enlarged.is_some()
            && rest.iter().chain(&kw).all(|f| f.enlarged.is_none())
            && (op.kind == OpKind::Resampling
                && rest
                    .iter()
                    .all(|f| f.kind != ValueKind::Tensor && f.shape.is_none())
                || rest.iter().all(|f| f.kind == ValueKind::Scalar)
                    && call
                        .arguments
                        .keywords
                        .iter()
                        .all(|k| is_number(&k.value) || is_flag(&k.value)));
        let dtype = op.dtype.of_input(recv.dtype);
        if plain {
            self.sink_receiver = None;
            let range = call.range();
            if let Some(mut fact) = self.table_sink(&recv, along, range, range, dtype) {
                self.carry_mapped_copy(&mut fact, mapped_copy, through, ctx);
                return Some(fact);
            }
        }
        let shape = matches!(op.kind, OpKind::PointwiseUnary | OpKind::ShapePreserving)
            .then(|| recv.shape.clone())
            .flatten();
        let mut fact = Fact::tensor(dtype, shape);
        if op.dtype == ResultDtype::Same && dtype.is_none() {
            fact = fact.same_dtype_as(&recv);
        }
        let mut fact = fact.placed(operands_placement(&recv, &rest));
        self.carry_mapped_copy(&mut fact, mapped_copy, through, ctx);
        Some(fact)
    }

    /// `self.proj(x)` where `__init__` set `self.proj = nn.Linear(...)` (or a norm, an activation,
    /// a convolution): the module acts as its functional form on an enlarged `x`.
    pub(super) fn module_call_sink(&mut self, class: &str, call: &ast::ExprCall) -> Option<Fact> {
        let op = op_table::module_class(class)?;
        let along = match op.kind {
            OpKind::PointwiseUnary => Along::Nothing,
            // `nn.Linear` reads the last dim; norms normalize the trailing ones.
            OpKind::Contraction if class.contains("Linear") => Along::Dims(vec![-1]),
            OpKind::ShapePreserving if class.contains("LayerNorm") || class == "RMSNorm" => {
                Along::Dims(vec![-1])
            }
            OpKind::Contraction | OpKind::ShapePreserving | OpKind::Resampling => {
                Along::AllButBatch
            }
            _ => return None,
        };
        let [first] = &call.arguments.args[..] else {
            return None;
        };
        if !call.arguments.keywords.is_empty() {
            return None;
        }
        let recv = self.eval(first);
        let dtype = match op.kind {
            OpKind::PointwiseUnary | OpKind::ShapePreserving => op.dtype.of_input(recv.dtype),
            _ => None,
        };
        if recv.enlarged.is_some() {
            self.sink_receiver = None;
            let range = call.range();
            if let Some(fact) = self.table_sink(&recv, along, range, range, dtype) {
                return Some(fact);
            }
        }
        Some(Fact::tensor(dtype, None).placed_like(&recv))
    }
}

/// The dims an op works along, from its kind and its `dim` argument (`dim=`, or positional where
/// the table says the signature has it; a method's receiver is the tensor input); None for kinds
/// that are not sinks here.
fn along_of(op: &OpInfo, name: &str, call: &ast::ExprCall, method: bool) -> Option<Along> {
    match op.kind {
        OpKind::PointwiseUnary => Some(Along::Nothing),
        // A batch of matrices: the last two dims (`tril`, `triu`).
        OpKind::ShapePreserving if op_table::acts_on_matrices(name) => {
            Some(Along::Dims(vec![-2, -1]))
        }
        OpKind::ShapePreserving => {
            let positional = op
                .dim_at
                .and_then(|at| usize::from(at).checked_sub(usize::from(method)))
                .and_then(|at| call.arguments.args.get(at));
            let dim = keyword(call, "dim").or(positional).and_then(literal_int);
            Some(match dim {
                Some(d) => Along::Dims(vec![d]),
                None => Along::AllButBatch,
            })
        }
        OpKind::Resampling => Some(Along::AllButBatch),
        _ => None,
    }
}

/// Where an op's result lives: where its tensor operands do (`first`, then `rest`).
pub(super) fn operands_placement(first: &Fact, rest: &[Fact]) -> Placement {
    std::iter::once(first)
        .chain(rest)
        .filter(|f| !f.is_not_tensor())
        .map(|f| f.placement)
        .reduce(Placement::combine)
        .unwrap_or_default()
}

/// Whether a call of the table's function `op` maps each element of its first argument on its
/// own: a pointwise unary op, not written in place (`sigmoid_`, `inplace=True`).
pub(super) fn call_maps_elementwise(op: &OpInfo, name: &str, call: &ast::ExprCall) -> bool {
    op.kind == OpKind::PointwiseUnary && !name.ends_with('_') && !writes_in_place(call)
}

/// `inplace=` given and not literally `False` (`F.relu(x, inplace=True)`, `inplace=self.inplace`).
pub(super) fn writes_in_place(call: &ast::ExprCall) -> bool {
    keyword(call, "inplace").is_some_and(|v| !matches!(v, Expr::BooleanLiteral(b) if !b.value))
}

fn is_number(e: &Expr) -> bool {
    crate::analysis::dtype_infer::is_number_literal(e)
}

fn is_flag(e: &Expr) -> bool {
    matches!(e, Expr::BooleanLiteral(_) | Expr::NoneLiteral(_))
}

/// Every argument of a method call is a number (a dim, an exponent), keywords included.
fn numbers_only(call: &ast::ExprCall, arg_facts: &[Fact]) -> bool {
    arg_facts.iter().all(|f| f.kind == ValueKind::Scalar)
        && call
            .arguments
            .keywords
            .iter()
            .all(|k| is_number(&k.value) || is_flag(&k.value))
}
