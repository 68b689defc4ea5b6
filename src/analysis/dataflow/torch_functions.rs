//! Functions of a module called by path: `torch.*` (enlargers, elementwise functions, factories
//! whose dtype and shape are known) and numpy/math and friends (not tensors).

use crate::source::Ranged;
use crate::source::ast::{self, Expr, Number};

use crate::analysis::SinkKind;
use crate::analysis::dtype_infer::{dtype_of_expr, is_float_scalar};
use crate::analysis::facts::{DType, Dim, EnlargeKind, Fact, Placement, Shape, ValueKind};
use crate::analysis::shape_infer::{
    arange_length, factory_shape, keyword, list_repeat_count, repeated_list_element, sym_expr,
};
use crate::analysis::torch_api::{
    BINARY_ELEMENTWISE, CONCAT_FUNCTIONS, LIKE_FACTORIES, NON_TENSOR_FUNCTIONS,
    SHAPE_PRESERVING_FUNCTIONS, TENSOR_CONSTRUCTORS, UNARY_ELEMENTWISE, is_non_tensor_module,
    is_sized_factory, returns_bool, returns_int64,
};

use super::expr::UseCtx;
use super::stmt::{ResultUse, Walker};
use super::tensor_methods::device_placement;

impl Walker<'_, '_> {
    /// Functions of a module: `torch.*` (tensors), numpy and friends (not tensors).
    pub(super) fn eval_module_function(
        &mut self,
        module: &str,
        name: &str,
        call: &ast::ExprCall,
        ctx: UseCtx,
    ) -> Fact {
        if !module.starts_with("torch") {
            self.eval_args(call);
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
            _ if CONCAT_FUNCTIONS.contains(&name) => {
                if let Some(repeated) = args
                    .first()
                    .and_then(|a| repeated_list_element(a, self.fs.text))
                {
                    let recv = self.eval(repeated);
                    self.eval_keywords(call);
                    if let Some(count) = args.first().and_then(|a| list_repeat_count(a)) {
                        self.eval(count);
                    }
                    return self.enlarge(
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
                }
            }
            "clone" if !args.is_empty() => {
                let recv = self.eval(args[0]);
                self.eval_args_from(call, 1);
                if recv
                    .enlarged
                    .as_ref()
                    .is_some_and(|e| e.kind == EnlargeKind::View)
                {
                    return self.sink(&recv, SinkKind::Materialize, range, code, recv.dtype);
                }
                return Fact::tensor(recv.dtype, recv.shape.clone()).placed(recv.placement);
            }
            "where" if args.len() == 3 => {
                let facts: Vec<Fact> = args
                    .iter()
                    .map(|a| self.eval_with(a, UseCtx::Broadcast))
                    .collect();
                let enlarged: Vec<&Fact> = facts.iter().filter(|f| f.enlarged.is_some()).collect();
                if enlarged.len() == 1
                    && facts.iter().filter(|f| f.kind == ValueKind::Scalar).count() == 2
                {
                    let recv = enlarged[0].clone();
                    let dtype = if args[1..].iter().any(|a| is_float_scalar(a)) {
                        Some(DType::Float32)
                    } else {
                        None
                    };
                    return self.sink(&recv, SinkKind::Elementwise, range, code, dtype);
                }
                let placement = facts
                    .iter()
                    .filter(|f| !f.is_not_tensor())
                    .map(|f| f.placement)
                    .reduce(Placement::combine)
                    .unwrap_or_default();
                return Fact::tensor(None, None).placed(placement);
            }
            _ => {}
        }
        if (UNARY_ELEMENTWISE.contains(&name) || BINARY_ELEMENTWISE.contains(&name))
            && !args.is_empty()
        {
            let first = self.eval(args[0]);
            let rest: Vec<Fact> = args[1..].iter().map(|a| self.eval(a)).collect();
            self.eval_keywords(call);
            let dtype = if returns_bool(name) {
                Some(DType::Bool)
            } else {
                first.dtype
            };
            if first.enlarged.is_some() && rest.iter().all(|f| f.kind == ValueKind::Scalar) {
                return self.sink(&first, SinkKind::Elementwise, range, code, dtype);
            }
            let placement = std::iter::once(&first)
                .chain(&rest)
                .filter(|f| !f.is_not_tensor())
                .map(|f| f.placement)
                .reduce(Placement::combine)
                .unwrap_or_default();
            return Fact::tensor(dtype, None).placed(placement);
        }
        let arg_facts = self.eval_args(call);
        let dtype_kw = keyword(call, "dtype").map(|e| dtype_of_expr(e, |v| self.module_path(v)));
        // A factory makes its tensor on the host unless `device=` says otherwise.
        let made_at = match keyword(call, "device") {
            Some(device) => {
                let fact = self.eval(device);
                match device_placement(device, &fact) {
                    Placement::Host => Placement::Host,
                    _ => Placement::Device,
                }
            }
            None => Placement::Host,
        };
        let mut fact = self.torch_function_fact(name, &args, &arg_facts, dtype_kw);
        // `dtype=x.dtype`: the dtype of `x`, whatever it is.
        if fact.dtype.is_none()
            && fact.kind == ValueKind::Tensor
            && let Some(dtype) = keyword(call, "dtype")
        {
            fact.dtype_sym = self.eval(dtype).dtype_sym;
        }
        match name {
            _ if NON_TENSOR_FUNCTIONS.contains(&name) => fact,
            "device" => fact.placed(args.first().zip(arg_facts.first()).map_or(
                Placement::Unknown,
                |(arg, f)| match device_placement(arg, f) {
                    Placement::Host => Placement::Host,
                    _ => Placement::Device,
                },
            )),
            "arange" | "eye" | "from_numpy" | "randperm" => fact.placed(made_at),
            _ if is_sized_factory(name) => fact.placed(made_at),
            // Built from Python data (a list, a number, a numpy array).
            "tensor" | "as_tensor" | "Tensor" | "BoolTensor" | "ByteTensor" | "CharTensor"
            | "ShortTensor" | "IntTensor" | "LongTensor" | "HalfTensor" | "FloatTensor"
            | "DoubleTensor"
                if arg_facts
                    .first()
                    .is_none_or(|f| f.kind != ValueKind::Tensor && f.enlarged.is_none()) =>
            {
                fact.placed(made_at)
            }
            _ if LIKE_FACTORIES.contains(&name) => {
                let first = arg_facts
                    .first()
                    .map_or(Placement::Unknown, |f| f.placement);
                fact.placed(if keyword(call, "device").is_some() {
                    made_at
                } else {
                    first
                })
            }
            _ if SHAPE_PRESERVING_FUNCTIONS.contains(&name) => match arg_facts.first() {
                Some(first) => fact.same_dtype_as(first).placed(first.placement),
                None => fact,
            },
            // Any other function of tensors (`F.pad`, `torch.stack`): where its tensors are.
            _ if fact.kind == ValueKind::Tensor && keyword(call, "device").is_none() => {
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

    /// The dtype and shape of a `torch.*` function's result.
    fn torch_function_fact(
        &mut self,
        name: &str,
        args: &[&Expr],
        arg_facts: &[Fact],
        dtype_kw: Option<Option<DType>>,
    ) -> Fact {
        match name {
            _ if NON_TENSOR_FUNCTIONS.contains(&name) => Fact::of_kind(ValueKind::NotTensor),
            "device" => Fact::of_kind(ValueKind::DeviceValue),
            "arange" => {
                let dtype = dtype_kw.flatten().or_else(|| {
                    if args.iter().any(|a| is_float_scalar(a)) {
                        Some(DType::Float32)
                    } else {
                        Some(DType::Int64)
                    }
                });
                let shape = arange_length(args, self.fs.text).map(|n| Shape(vec![Dim::Size(n)]));
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
                    dtype_kw.flatten().or(default),
                    factory_shape(size_args, self.fs.text),
                )
            }
            _ if LIKE_FACTORIES.contains(&name) => {
                let first = arg_facts.first();
                Fact::tensor(
                    dtype_kw.flatten().or(first.and_then(|f| f.dtype)),
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
            "eye" => Fact::tensor(dtype_kw.flatten().or(Some(DType::Float32)), None),
            _ if TENSOR_CONSTRUCTORS.contains(&name) => Fact::tensor(dtype_kw.flatten(), None),
            _ if name.ends_with("Tensor") => Fact::tensor(
                dtype_kw.flatten().or(DType::from_tensor_type_name(name)),
                None,
            ),
            _ if returns_bool(name) => Fact::tensor(Some(DType::Bool), None),
            _ if returns_int64(name) => {
                Fact::tensor(dtype_kw.flatten().or(Some(DType::Int64)), None)
            }
            _ => Fact::tensor(None, None),
        }
    }
}
