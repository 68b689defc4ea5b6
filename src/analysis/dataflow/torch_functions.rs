//! Functions of a module called by path: `torch.*` (enlargers, elementwise functions, factories
//! whose dtype and shape are known) and numpy/math and friends (not tensors).

use crate::source::ast::{self, Expr, Number};
use crate::source::{Ranged, TextRange};

use crate::analysis::SinkKind;
use crate::analysis::dtype_infer::{dtype_of_expr, is_float_scalar};
use crate::analysis::facts::{DType, Dim, EnlargeKind, Fact, Placement, Shape, SymExpr, ValueKind};
use crate::analysis::op_table;
use crate::analysis::shape_infer::{
    EinopsAxis, EinopsRepeat, arange_dim, einops_repeat_pattern, factory_shape, keyword,
    list_repeat_count, literal_int, repeated_list_element, sym_expr,
};
use crate::analysis::torch_api::{
    BINARY_ELEMENTWISE, CONCAT_FUNCTIONS, LIKE_FACTORIES, NON_TENSOR_FUNCTIONS,
    SHAPE_PRESERVING_FUNCTIONS, TENSOR_CONSTRUCTORS, UNARY_ELEMENTWISE, is_non_tensor_module,
    is_sized_factory, returns_bool, returns_int64,
};

use super::devices::{named_device, names_device};
use super::expr::UseCtx;
use super::stmt::{ResultUse, Walker};
use super::tensor_methods::device_placement;

mod operand_reads;

/// `torch.cat((freqs, freqs), dim=-1)`: a display of one name joined along the last dim, the
/// rotary-table idiom (a `[seq, head_dim / 2]` table doubled to `head_dim`). The copy is at most a
/// few times a table that is small by construction: not taken for an enlargement.
fn feature_duplication(call: &ast::ExprCall, args: &[&Expr]) -> bool {
    let display = matches!(args.first(), Some(Expr::List(_) | Expr::Tuple(_)));
    let dim = args.get(1).copied().or_else(|| keyword(call, "dim"));
    display && dim.and_then(literal_int) == Some(-1)
}

impl Walker<'_, '_> {
    /// `F.pad(x, ...)`, `torch.clone(x)`: a new dense tensor written from `x`, so a broadcast view
    /// `x` is materialized there; `keeps_shape` when the result has `x`'s shape.
    fn materializes_first_arg(
        &mut self,
        call: &ast::ExprCall,
        first: &Expr,
        range: TextRange,
        keeps_shape: bool,
    ) -> Fact {
        let recv = self.eval(first);
        self.eval_args_from(call, 1);
        if recv
            .enlarged
            .as_ref()
            .is_some_and(|e| e.kind == EnlargeKind::View)
        {
            return self.sink(&recv, SinkKind::Materialize, range, range, recv.dtype);
        }
        let shape = if keeps_shape {
            recv.shape.clone()
        } else {
            None
        };
        Fact::tensor(recv.dtype, shape).placed_like(&recv)
    }

    /// Functions of a module: `torch.*` (tensors), numpy and friends (not tensors).
    pub(super) fn eval_module_function(
        &mut self,
        module: &str,
        name: &str,
        call: &ast::ExprCall,
        ctx: UseCtx,
    ) -> Fact {
        let mut fact = self.eval_module_function_result(module, name, call, ctx);
        // What torch says of the result's sizes: a `keepdim=True` reduction's dims, an adaptive
        // pooling's output size of 1.
        super::unit_results::note_kept_dims(&mut fact, Some(module), name, call, false);
        super::unit_results::note_pooled_dims(&mut fact, module, name, call);
        fact
    }

    fn eval_module_function_result(
        &mut self,
        module: &str,
        name: &str,
        call: &ast::ExprCall,
        ctx: UseCtx,
    ) -> Fact {
        if module == "einops" && name == "repeat" {
            return self.einops_repeat(call);
        }
        if name == "Parameter" && matches!(module, "nn" | "torch.nn") {
            // `nn.Parameter(t)`: the tensor it wraps, a fresh leaf. The optimizer writes it in
            // place, so a copy made for it is its own weight (`nn.Parameter(w.expand(h,
            // d).clone())`, `nn.Parameter(x.repeat(h, 1))`): a view would share one weight.
            let wrapped = self.eval_args(call).into_iter().next();
            if let Some(f) = &wrapped {
                self.mark_in_place(f);
            }
            return match wrapped {
                Some(f) if !f.is_not_tensor() => Fact::tensor(f.dtype, f.shape),
                _ => Fact::tensor(None, None),
            };
        }
        if module == "torch.ops" || module.starts_with("torch.ops.") {
            // `torch.ops.ns.op(x)`: a compiled extension operator; its kernels read their
            // tensors as dense memory.
            let facts = self.eval_all_args(call);
            for fact in &facts {
                self.mark_use(fact, ResultUse::NeedsDense);
            }
            self.mark_left_project(&facts);
            return Fact::unknown();
        }
        if !crate::analysis::torch_api::is_torch_module(module) {
            let facts = self.eval_all_args(call);
            if self.outside_project(module) || (name == "apply" && self.names_class(module)) {
                // Another package's function; or `Class.apply(...)` called on a class (not an
                // instance): torch.autograd.Function's entry point, whose `forward` the walk
                // does not follow and which custom Functions write for compiled kernels.
                self.mark_left_project(&facts);
            }
            return match module {
                "math" => Fact::of_kind(ValueKind::Scalar),
                _ if is_non_tensor_module(module) => Fact::of_kind(ValueKind::NotTensor),
                _ => Fact::unknown(),
            };
        }
        let args: Vec<&Expr> = call.arguments.args.iter().collect();
        let range = call.range();
        let code = range;
        self.sink_receiver = None;
        if name == "scaled_dot_product_attention" {
            return self.attention_call(call);
        }
        if matches!(
            name,
            "conv1d"
                | "conv2d"
                | "conv3d"
                | "conv_transpose1d"
                | "conv_transpose2d"
                | "conv_transpose3d"
        ) {
            // The weight (second argument) is read as a dense kernel.
            let facts = self.eval_args(call);
            let weight = match facts.get(1) {
                Some(fact) => Some(fact.clone()),
                None => keyword(call, "weight").map(|w| self.eval(w)),
            };
            if let Some(weight) = weight {
                self.mark_use(&weight, ResultUse::ConvWeight);
            }
            return Fact::tensor(facts.first().and_then(|f| f.dtype), None);
        }
        match name {
            "broadcast_to" | "repeat_interleave" | "tile"
                if args.len() >= 2 || (name != "repeat_interleave" && !args.is_empty()) =>
            {
                let recv_expr = args[0];
                let recv = self.eval(recv_expr);
                let rest: Vec<&Expr> = args[1..].to_vec();
                let mut rest_facts = Vec::new();
                for a in &rest {
                    rest_facts.push(self.eval(a));
                }
                self.eval_keywords(call);
                let kind = if name == "broadcast_to" {
                    EnlargeKind::View
                } else {
                    EnlargeKind::Copy
                };
                return self.enlarge(
                    recv_expr,
                    recv,
                    kind,
                    name,
                    &rest,
                    &rest_facts,
                    call,
                    range,
                    code,
                    ctx,
                );
            }
            "stack" => {
                if let Some(repeated) = args
                    .first()
                    .and_then(|a| repeated_list_element(a, self.fs.text))
                {
                    // `torch.stack([x] * n)`: `n` copies of `x` along a new dim.
                    let recv = self.eval(repeated);
                    self.eval_keywords(call);
                    let count = args.first().and_then(|a| list_repeat_count(a));
                    if let Some(count) = count {
                        self.eval(count);
                    }
                    let size = match (count, args.first()) {
                        (Some(count), _) => Dim::Size(sym_expr(count, self.fs.text)),
                        (None, Some(Expr::List(l))) => Dim::Size(SymExpr::Num(l.elts.len() as i64)),
                        (None, Some(Expr::Tuple(t))) => {
                            Dim::Size(SymExpr::Num(t.elts.len() as i64))
                        }
                        _ => Dim::Unknown,
                    };
                    let dim = args
                        .get(1)
                        .copied()
                        .or_else(|| keyword(call, "dim"))
                        .map_or(Some(0), literal_int);
                    let shape = match (&recv.shape, dim) {
                        (Some(src), Some(d)) => {
                            let rank = src.rank() as i64 + 1;
                            let at = if d < 0 { d + rank } else { d };
                            (0..rank).contains(&at).then(|| {
                                let mut dims = src.0.clone();
                                dims.insert(at as usize, size);
                                Shape(dims)
                            })
                        }
                        _ => None,
                    };
                    let recv_code = self.fs.code(repeated.range());
                    let (fact, _, _) = self.enlarged_fact(
                        repeated,
                        &recv,
                        EnlargeKind::Copy,
                        "stack",
                        shape,
                        range,
                        code,
                        recv_code,
                        None,
                    );
                    return fact;
                }
            }
            "gather" | "take_along_dim" => {
                // The index is read like a broadcast operand: an expanded index does as well as
                // a repeated one.
                let index_at = if name == "gather" { 2 } else { 1 };
                let facts = self.eval_index_args(call, Some(0), index_at);
                return Fact::tensor(facts.first().and_then(|f| f.dtype), None);
            }
            "pad" if module.ends_with("functional") && !args.is_empty() => {
                // Padding writes a new tensor of the (enlarged) size.
                return self.materializes_first_arg(call, args[0], range, false);
            }
            _ if CONCAT_FUNCTIONS.contains(&name) => {
                if let Some(repeated) = args
                    .first()
                    .and_then(|a| repeated_list_element(a, self.fs.text))
                    .filter(|_| !feature_duplication(call, &args))
                {
                    let recv = self.eval(repeated);
                    self.eval_keywords(call);
                    if let Some(count) = args.first().and_then(|a| list_repeat_count(a)) {
                        self.eval(count);
                    }
                    let shape = args.first().and_then(|a| {
                        concat_shape(name, a, call, recv.shape.as_ref(), self.fs.text)
                    });
                    let mut fact = self.enlarge(
                        repeated,
                        recv,
                        EnlargeKind::Copy,
                        "cat",
                        &[],
                        &[],
                        call,
                        range,
                        code,
                        ctx,
                    );
                    if fact.shape.is_none()
                        && let Some(shape) = shape
                    {
                        if let Some(e) = fact.enlarged.as_mut() {
                            std::rc::Rc::make_mut(e).shape = Some(shape.clone());
                        }
                        fact.shape = Some(shape);
                    }
                    return fact;
                }
            }
            "clone" if !args.is_empty() => {
                return self.materializes_first_arg(call, args[0], range, true);
            }
            "where" if args.len() == 3 => {
                let facts: Vec<Fact> = args
                    .iter()
                    .map(|a| self.eval_with(a, UseCtx::Broadcast))
                    .collect();
                let enlarged: Vec<&Fact> = facts.iter().filter(|f| f.enlarged.is_some()).collect();
                let scalars = args
                    .iter()
                    .zip(&facts)
                    .filter(|(a, f)| Self::counts_as_scalar(a, f, &facts[0]))
                    .count();
                if enlarged.len() == 1 && facts[0].enlarged.is_some() && scalars == 2 {
                    let recv = enlarged[0].clone();
                    let dtype = if args[1..].iter().any(|a| is_float_scalar(a)) {
                        Some(DType::Float32)
                    } else {
                        None
                    };
                    let mut fact = self.sink(&recv, SinkKind::Elementwise, range, code, dtype);
                    fact.dtype_sym = None;
                    if dtype.is_none() {
                        fact = fact.same_dtype_as(&where_values_dtype(&facts[1], &facts[2]));
                    }
                    return fact;
                }
                let placement = facts
                    .iter()
                    .filter(|f| !f.is_not_tensor())
                    .map(|f| f.placement)
                    .reduce(Placement::combine)
                    .unwrap_or_default();
                return Fact::tensor(None, None)
                    .placed(placement)
                    .same_dtype_as(&where_values_dtype(&facts[1], &facts[2]));
            }
            _ => {}
        }
        // A pointwise op of the table reads its tensor operands as broadcasts (OOM121).
        let operand_ctx = super::broadcast_reads::function_ctx(module, name);
        if (UNARY_ELEMENTWISE.contains(&name) || BINARY_ELEMENTWISE.contains(&name))
            && !args.is_empty()
        {
            // A pointwise unary function of the table (`torch.sigmoid(z)`) maps each element on
            // its own: its result carries a repeated copy on.
            let maps = crate::analysis::op_table::function(module, name)
                .is_some_and(|op| super::table_sinks::call_maps_elementwise(op, name, call));
            let first = self.eval_with(args[0], if maps { UseCtx::Map } else { operand_ctx });
            let rest: Vec<Fact> = args[1..]
                .iter()
                .map(|a| self.eval_with(a, operand_ctx))
                .collect();
            self.eval_keywords(call);
            if super::table_sinks::writes_in_place(call) {
                // `F.relu(x, inplace=True)` writes `x` and returns it: no new tensor.
                self.mark_in_place(&first);
                return first;
            }
            let dtype = if returns_bool(name) {
                Some(DType::Bool)
            } else {
                first.dtype
            };
            let mapped_copy = first.repeat_candidate.filter(|_| maps);
            let through = || format!("{module}.{name}()");
            let mut fact =
                if first.enlarged.is_some() && rest.iter().all(|f| f.kind == ValueKind::Scalar) {
                    self.sink(&first, SinkKind::Elementwise, range, code, dtype)
                } else {
                    Fact::tensor(dtype, None)
                        .placed(super::table_sinks::operands_placement(&first, &rest))
                };
            self.carry_mapped_copy(&mut fact, mapped_copy, through, ctx);
            return fact;
        }
        if let Some(fact) = self.table_function_sink(module, name, call, ctx) {
            return fact;
        }
        let arg_facts: Vec<Fact> = args
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let ctx = super::broadcast_reads::function_arg_ctx(module, name, i);
                self.eval_with(a, ctx)
            })
            .collect();
        self.eval_keywords(call);
        if CONTRACTIONS.contains(&name) {
            for fact in &arg_facts {
                self.mark_use(fact, ResultUse::Contracted);
            }
        }
        let dtype_kw = keyword(call, "dtype").map(|e| dtype_of_expr(e, |v| self.module_path(v)));
        // A factory makes its tensor on the host unless `device=` says otherwise.
        let (made_at, made_on) = match keyword(call, "device") {
            Some(device) => {
                let fact = self.eval(device);
                let at = match device_placement(device, &fact) {
                    Placement::Host => Placement::Host,
                    _ => Placement::Device,
                };
                (at, named_device(device, &fact))
            }
            None => (Placement::Host, None),
        };
        let at = call.range().start().to_u32();
        let mut fact = self.torch_function_fact(call, name, &args, &arg_facts, dtype_kw);
        // What torch says of the result's dtype: the input's (`torch.bernoulli(p)`,
        // `torch.nan_to_num(x)`), known or by its name.
        if fact.kind == ValueKind::Tensor
            && fact.dtype.is_none()
            && fact.dtype_sym.is_none()
            && dtype_kw.is_none()
            && let Some(first) = arg_facts.first()
            && first.kind == ValueKind::Tensor
            && op_table::function(module, name)
                .is_some_and(|op| op.dtype == op_table::ResultDtype::Same)
        {
            fact = fact.same_dtype_as(first);
        }
        // `dtype=x.dtype`: the dtype of `x`, known or by its name.
        if fact.dtype.is_none()
            && fact.kind == ValueKind::Tensor
            && let Some(dtype) = keyword(call, "dtype")
        {
            let named = self.eval(dtype);
            match named.kind {
                ValueKind::DTypeValue(Some(d)) => fact.dtype = Some(d),
                _ => fact.dtype_sym = named.dtype_sym,
            }
        }
        // Joined along one dim: the other dims are the elements' common sizes.
        if fact.shape.is_none()
            && CONCAT_FUNCTIONS.contains(&name)
            && let Some(seq) = arg_facts.first()
        {
            fact.shape = joined_shape(seq.shape.as_ref(), call);
        }
        match name {
            _ if NON_TENSOR_FUNCTIONS.contains(&name) => fact,
            // `torch.cat(feats)` of a list whose every tensor lives in one place.
            _ if (CONCAT_FUNCTIONS.contains(&name) || name == "stack")
                && keyword(call, "device").is_none()
                && arg_facts.first().is_some_and(|seq| {
                    seq.kind == ValueKind::NotTensor
                        && (matches!(seq.placement, Placement::Host | Placement::Device)
                            || seq.device_sym.is_some())
                }) =>
            {
                Fact {
                    kind: ValueKind::Tensor,
                    ..fact.same_dtype_as(&arg_facts[0])
                }
                .placed_like(&arg_facts[0])
            }
            "device" => fact.placed(args.first().zip(arg_facts.first()).map_or(
                Placement::Unknown,
                |(arg, f)| match device_placement(arg, f) {
                    Placement::Host => Placement::Host,
                    _ => Placement::Device,
                },
            )),
            "arange" | "eye" | "from_numpy" | "randperm" => {
                self.placed_on(fact.placed(made_at), made_on, at)
            }
            _ if is_sized_factory(name) => self.placed_on(fact.placed(made_at), made_on, at),
            // Built from Python data (a list, a number, a numpy array).
            "tensor" | "as_tensor" | "Tensor" | "BoolTensor" | "ByteTensor" | "CharTensor"
            | "ShortTensor" | "IntTensor" | "LongTensor" | "HalfTensor" | "FloatTensor"
            | "DoubleTensor"
                if arg_facts
                    .first()
                    .is_none_or(|f| f.kind != ValueKind::Tensor && f.enlarged.is_none()) =>
            {
                self.placed_on(fact.placed(made_at), made_on, at)
            }
            _ if LIKE_FACTORIES.contains(&name) => {
                match (keyword(call, "device"), arg_facts.first()) {
                    (Some(_), _) => self.placed_on(fact.placed(made_at), made_on, at),
                    (None, Some(first)) => fact.placed_like(first),
                    (None, None) => fact.placed(Placement::Unknown),
                }
            }
            _ if SHAPE_PRESERVING_FUNCTIONS.contains(&name) => match arg_facts.first() {
                Some(first) => fact.same_dtype_as(first).placed_like(first),
                None => fact,
            },
            // Any other function of tensors (`F.pad`, `torch.stack`): where its tensors are.
            _ if fact.kind == ValueKind::Tensor && keyword(call, "device").is_none() => {
                // A sequence of tensors of one dtype joined: that dtype.
                let fact = match arg_facts.first() {
                    Some(seq)
                        if (CONCAT_FUNCTIONS.contains(&name) || name == "stack")
                            && fact.dtype.is_none()
                            && fact.dtype_sym.is_none()
                            && (seq.dtype.is_some() || seq.dtype_sym.is_some()) =>
                    {
                        fact.same_dtype_as(seq)
                    }
                    _ => fact,
                };
                let placement = arg_facts
                    .iter()
                    .filter(|f| f.kind == ValueKind::Tensor || f.enlarged.is_some())
                    .map(|f| f.placement)
                    .reduce(Placement::combine)
                    .unwrap_or_default();
                fact.placed(placement)
            }
            _ => fact,
        }
    }

    /// `einops.repeat(x, 'b n -> b h n', h=8)`: a new axis is a stride-0 view of `x` (einops
    /// expands); a new axis grouped with others (`'b n -> (b h) n'`) makes a repeated copy.
    fn einops_repeat(&mut self, call: &ast::ExprCall) -> Fact {
        let args: Vec<&Expr> = call.arguments.args.iter().collect();
        let facts = self.eval_args(call);
        let (Some(recv_expr), Some(recv), Some(Expr::StringLiteral(pattern))) =
            (args.first(), facts.first(), args.get(1))
        else {
            return Fact::unknown();
        };
        if recv.is_not_tensor() {
            return Fact::unknown();
        }
        let Some(EinopsRepeat { view, out }) = einops_repeat_pattern(pattern.value.to_str()) else {
            return Fact::tensor(recv.dtype, None).placed_like(recv);
        };
        // The output dims: a kept axis has its size in `x`, else the pattern's name for it (the
        // pattern says what the axis is: `'h -> b h i 1'`); a new one the size given as a
        // keyword; a `1` is a unit axis. A pattern whose left side does not match `x`'s known
        // rank says nothing of the shape.
        let rank_matches = |axes: &[EinopsAxis]| {
            let left = axes
                .iter()
                .filter_map(|a| match a {
                    EinopsAxis::Keep(i, _) => Some(*i + 1),
                    _ => None,
                })
                .max()
                .unwrap_or(0);
            recv.shape.as_ref().is_none_or(|s| s.rank() == left)
        };
        let shape = out.filter(|axes| rank_matches(axes)).map(|axes| {
            Shape(
                axes.iter()
                    .map(|axis| match axis {
                        EinopsAxis::Keep(i, name) => recv
                            .shape
                            .as_ref()
                            .and_then(|s| s.0.get(*i).cloned())
                            .filter(|d| !matches!(d, Dim::Unknown))
                            .unwrap_or_else(|| Dim::Size(SymExpr::Var(name.clone()))),
                        EinopsAxis::New(name) => keyword(call, name)
                            .map_or(Dim::Unknown, |v| Dim::Size(sym_expr(v, self.fs.text))),
                        EinopsAxis::Unit => Dim::Size(SymExpr::Num(1)),
                    })
                    .collect(),
            )
        });
        let kind = if view {
            EnlargeKind::View
        } else {
            EnlargeKind::Copy
        };
        let recv_code = self.fs.code(recv_expr.range());
        let (fact, _, _) = self.enlarged_fact(
            recv_expr,
            recv,
            kind,
            "einops.repeat",
            shape,
            call.range(),
            call.range(),
            recv_code,
            None,
        );
        fact
    }

    /// The dtype and shape of a `torch.*` function's result.
    fn torch_function_fact(
        &mut self,
        call: &ast::ExprCall,
        name: &str,
        args: &[&Expr],
        arg_facts: &[Fact],
        dtype_kw: Option<Option<DType>>,
    ) -> Fact {
        match name {
            _ if NON_TENSOR_FUNCTIONS.contains(&name) => Fact::of_kind(ValueKind::NotTensor),
            "device" => Fact::of_kind(ValueKind::DeviceValue),
            "arange" => {
                // `dtype=` that names no known dtype (`dtype=dtype`): not the default.
                let dtype = dtype_kw.unwrap_or_else(|| {
                    if args.iter().any(|a| is_float_scalar(a)) {
                        Some(DType::Float32)
                    } else {
                        Some(DType::Int64)
                    }
                });
                let shape = arange_dim(args, call, self.fs.text).map(|d| Shape(vec![d]));
                Fact::tensor(dtype, shape)
            }
            _ if is_sized_factory(name) => {
                let default = match name {
                    "full" => args.get(1).and_then(|a| match a {
                        Expr::BooleanLiteral(_) => Some(DType::Bool),
                        Expr::NumberLiteral(n) => match n.value {
                            Number::Int(_) => Some(DType::Int64),
                            _ => Some(DType::Float32),
                        },
                        _ => None,
                    }),
                    "randint" => Some(DType::Int64),
                    _ => Some(DType::Float32),
                };
                let size_args: &[&Expr] = match name {
                    "full" => &args[..args.len().min(1)],
                    "randint" => &[],
                    _ => args,
                };
                Fact::tensor(
                    dtype_kw.unwrap_or(default),
                    factory_shape(size_args, self.fs.text),
                )
            }
            _ if LIKE_FACTORIES.contains(&name) => {
                let first = arg_facts.first();
                Fact::tensor(
                    dtype_kw.unwrap_or(first.and_then(|f| f.dtype)),
                    first.and_then(|f| f.shape.clone()),
                )
            }
            _ if SHAPE_PRESERVING_FUNCTIONS.contains(&name) => {
                let first = arg_facts.first();
                Fact::tensor(
                    first.and_then(|f| f.dtype),
                    first.and_then(|f| f.shape.clone()),
                )
            }
            // `torch.eye(n, m=None)`: an `[n, m]` matrix, `m` defaulting to `n`.
            "eye" => {
                let n = args.first().copied().or_else(|| keyword(call, "n"));
                let m = args.get(1).copied().or_else(|| keyword(call, "m")).or(n);
                let shape = n
                    .zip(m)
                    .and_then(|(n, m)| factory_shape(&[n, m], self.fs.text));
                Fact::tensor(dtype_kw.unwrap_or(Some(DType::Float32)), shape)
            }
            _ if TENSOR_CONSTRUCTORS.contains(&name) => Fact::tensor(dtype_kw.flatten(), None),
            // `torch.Tensor(t)` of a tensor: an alias of `t` (the legacy constructor returns
            // `t.alias()`), the same memory.
            "Tensor"
                if args.len() == 1
                    && call.arguments.keywords.is_empty()
                    && arg_facts
                        .first()
                        .is_some_and(|f| f.kind == ValueKind::Tensor || f.enlarged.is_some()) =>
            {
                let mut fact = arg_facts[0].clone();
                fact.kind = ValueKind::Tensor;
                fact.repeat_candidate = None;
                fact
            }
            _ if name.ends_with("Tensor") => {
                Fact::tensor(dtype_kw.unwrap_or(DType::from_tensor_type_name(name)), None)
            }
            _ if returns_bool(name) => Fact::tensor(Some(DType::Bool), None),
            _ if returns_int64(name) => Fact::tensor(dtype_kw.unwrap_or(Some(DType::Int64)), None),
            _ => Fact::tensor(None, None),
        }
    }
}

/// The dtype of `torch.where(cond, x, y)` as a fact to copy it from: that of two tensors of one
/// dtype (known, or by name); nothing otherwise (a scalar or another dtype promotes).
fn where_values_dtype(x: &Fact, y: &Fact) -> Fact {
    let mut out = Fact::unknown();
    if x.kind == ValueKind::Tensor && y.kind == ValueKind::Tensor {
        if x.dtype.is_some() && x.dtype == y.dtype {
            out.dtype = x.dtype;
        } else if x.dtype.is_none() && y.dtype.is_none() && x.dtype_sym == y.dtype_sym {
            out.dtype_sym = x.dtype_sym.clone();
        }
    }
    out
}

/// The dim `torch.cat(seq, dim)` joins along, as an index into `shape`: a literal `dim` (positional
/// or keyword, negative from the right), 0 when not given; `None` when it is not a literal or out
/// of range.
fn joined_dim(call: &ast::ExprCall, shape: &Shape) -> Option<usize> {
    let dim = match call.arguments.args.get(1).or_else(|| keyword(call, "dim")) {
        Some(d) => literal_int(d)?,
        None => 0,
    };
    let rank = shape.rank() as i64;
    let at = if dim < 0 { dim + rank } else { dim };
    usize::try_from(at).ok().filter(|at| *at < shape.rank())
}

/// The shape of `torch.cat(seq, dim)` from the common shape of its elements (see
/// `containers::common_shape`): the joined dim (a literal, default 0) is unknown, the others kept.
fn joined_shape(common: Option<&Shape>, call: &ast::ExprCall) -> Option<Shape> {
    let common = common?;
    let at = joined_dim(call, common)?;
    let mut dims = common.0.clone();
    dims[at] = Dim::Unknown;
    Some(Shape(dims))
}

/// The shape of `torch.cat(seq, dim)` when `seq` repeats one tensor of known shape: that dim
/// multiplied by the number of copies (`cat((x, x))`, `cat([x] * n, dim=1)`). Only `cat`/
/// `concat`/`concatenate`: `stack` adds a dim instead, and is left unknown here.
fn concat_shape(
    name: &str,
    seq: &Expr,
    call: &ast::ExprCall,
    source: Option<&Shape>,
    text: &str,
) -> Option<Shape> {
    if !matches!(name, "cat" | "concat" | "concatenate") {
        return None;
    }
    let source = source?;
    let count = match seq {
        Expr::List(l) => SymExpr::Num(l.elts.len() as i64),
        Expr::Tuple(t) => SymExpr::Num(t.elts.len() as i64),
        other => sym_expr(list_repeat_count(other)?, text),
    };
    let at = joined_dim(call, source)?;
    let mut dims = source.0.clone();
    dims[at] = match &dims[at] {
        Dim::Size(SymExpr::Num(1)) => Dim::Size(count),
        Dim::Size(s) => Dim::Size(SymExpr::Mul(Box::new(count), Box::new(s.clone()))),
        Dim::Unknown => Dim::Unknown,
    };
    Some(Shape(dims))
}

/// `m.shape[-1]`, `m.size(2)`, `self.m.shape[0]`: one size read off a tensor, as written.
fn is_size_read(code: &str) -> bool {
    let (base, rest) = if let Some(at) = code.find(".shape[") {
        (&code[..at], code[at + ".shape[".len()..].strip_suffix(']'))
    } else if let Some(at) = code.find(".size(") {
        (&code[..at], code[at + ".size(".len()..].strip_suffix(')'))
    } else {
        return false;
    };
    let index = rest.map(|r| r.strip_prefix('-').unwrap_or(r));
    base.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
        && base
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
        && index.is_some_and(|i| !i.is_empty() && i.chars().all(|c| c.is_ascii_digit()))
}

/// Matrix products and attention (functions and methods): they read their operands in the layout
/// given.
pub(super) const CONTRACTIONS: &[&str] = &[
    "matmul",
    "bmm",
    "mm",
    "baddbmm",
    "addmm",
    "einsum",
    "scaled_dot_product_attention",
];
