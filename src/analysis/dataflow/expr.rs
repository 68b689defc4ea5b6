//! Expressions: names and attributes, calls dispatched to their kind (module function, summarized
//! helper, tensor method), subscripts and operators. Each evaluation returns the [`Fact`] of the
//! value and records how the parent uses it (for repeat-as-expand candidates and copy reads).

use std::rc::Rc;

use crate::source::ast::visitor::{Visitor, walk_expr};
use crate::source::ast::{self, CmpOp, Expr, Operator, UnaryOp};
use crate::source::{Ranged, TextRange};

use crate::analysis::SinkKind;
use crate::analysis::dtype_infer::{
    arithmetic_dtype, scalar_is_float, scalar_like_expr, zero_dim_tensor,
};
use crate::analysis::facts::{DType, EnlargeKind, Fact, Placement, Step, StepRole, ValueKind};
use crate::analysis::shape_infer::{
    Index, classify_index, index_shape, operand_lacks_grown_dims, slice_takes_one,
};
use crate::analysis::torch_api::{
    MATH_CONSTANTS, METADATA_METHODS, NON_CONSUMING_ATTRIBUTES, NON_TENSOR_BUILTINS,
    SCALAR_BUILTINS, VIEW_METHODS, is_non_tensor_module,
};

use super::stmt::{ResultUse, Walker, dotted_key};

mod arguments;
mod containers;
mod operands;
mod subscript;
mod unary_compare;
mod uses;

use containers::sequence_of;
pub(super) use containers::{container_of, elements_placement};

/// How the parent expression uses a value (for OOM121: is a repeat only read by broadcasting?).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum UseCtx {
    Other,
    Broadcast,
    /// An element of the sequence a join (`torch.cat`, `torch.stack`) copies into its result:
    /// the join reads any strides, so a stride-0 view does as well as a copy.
    Concat,
    Bind,
    /// The value a function returns (`return r`): for a `repeat` there, its callers decide.
    Return,
    /// The tensor index of a tensor (`preds[mask] = v`, `x[ids]`): read through its strides, so
    /// a stride-0 mask or index selects the same elements as its copy.
    Index,
    /// The receiver of an elementwise map (`z.float()`, `z.sigmoid()`): a read of the values,
    /// but for OOM121 the map's result carries a repeated copy on, and its reads decide
    /// ([`super::broadcast_reads::maps_elementwise`]).
    Map,
}

impl Walker<'_, '_> {
    /// Evaluates the receiver of a view or metadata access: reading `x.shape` or `x.view(...)`
    /// does not consume a repeated copy `x`.
    fn eval_not_consuming(&mut self, expr: &Expr, consumes: bool) -> Fact {
        self.eval_receiver(expr, consumes, UseCtx::Other)
    }

    /// As [`Walker::eval_not_consuming`], the receiver read in `ctx` (a broadcasting method reads
    /// it as a broadcast operand).
    fn eval_receiver(&mut self, expr: &Expr, consumes: bool, ctx: UseCtx) -> Fact {
        self.last_copy_use = None;
        let fact = self.eval_with(expr, ctx);
        if !consumes
            && matches!(expr, Expr::Name(_) | Expr::Attribute(_))
            && let Some((id, at)) = self.last_copy_use.take()
            && let Some(uses) = self.fs.copy_uses.get_mut(id as usize)
        {
            uses.retain(|u| *u != at);
        }
        fact
    }

    /// Whether an operand acts as a Python number against the enlarged value `against`: its
    /// facts say so, or nothing is known about it (no dtype, shape, enlargement or full-size
    /// result) and its spelling is that of a number (see `dtype_infer::scalar_like_expr`): a 0-d
    /// tensor (`torch.tensor(0.0)`) against any enlarged value, a name or call spelled like a
    /// number (`self.p`, `scale`, `min_value_of_dtype(...)`) only against a broadcast view (a
    /// repeated copy is full size already: the guess is not worth its risk there).
    pub(super) fn counts_as_scalar(expr: &Expr, fact: &Fact, against: &Fact) -> bool {
        // A 0-d tensor (`x.mean()`) broadcasts like a number.
        if fact.kind == ValueKind::Scalar
            || (fact.enlarged.is_none() && fact.shape.as_ref().is_some_and(|s| s.rank() == 0))
        {
            return true;
        }
        let unknown = matches!(fact.kind, ValueKind::Unknown | ValueKind::Tensor)
            && fact.enlarged.is_none()
            && fact.shape.is_none()
            && fact.sink_results.is_empty()
            && (fact.kind == ValueKind::Unknown
                || !matches!(expr, Expr::Name(_) | Expr::Attribute(_)));
        let zero_dim = matches!(expr, Expr::Call(c) if zero_dim_tensor(c));
        let view = against
            .enlarged
            .as_ref()
            .is_some_and(|e| e.kind == crate::analysis::facts::EnlargeKind::View);
        unknown && scalar_like_expr(expr) && (zero_dim || view)
    }

    pub(super) fn eval(&mut self, expr: &Expr) -> Fact {
        self.eval_with(expr, UseCtx::Other)
    }

    pub(super) fn eval_with(&mut self, expr: &Expr, ctx: UseCtx) -> Fact {
        self.use_ctx = ctx;
        stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || self.eval_inner(expr))
    }

    fn take_ctx(&mut self) -> UseCtx {
        std::mem::replace(&mut self.use_ctx, UseCtx::Other)
    }

    fn eval_inner(&mut self, expr: &Expr) -> Fact {
        let ctx = self.take_ctx();
        match expr {
            Expr::Name(n) => self.read_name(n.id.as_str(), ctx, n.range),
            Expr::Attribute(a) => self.eval_attribute(expr, a, ctx),
            Expr::Call(c) => self.eval_call(c, ctx),
            Expr::Subscript(s) => match self.eval_element(s, ctx) {
                Some(fact) => fact,
                None => self.eval_subscript(s),
            },
            Expr::BinOp(b) => self.eval_binop(b),
            Expr::UnaryOp(u) => self.eval_unary(u),
            Expr::Compare(c) => self.eval_compare(c),
            Expr::BoolOp(b) => {
                let mut out: Option<Fact> = None;
                for value in &b.values {
                    let f = self.eval(value);
                    out = Some(match out {
                        Some(o) => o.join(&f),
                        None => f,
                    });
                }
                let mut out = out.unwrap_or_default();
                out.sink_results.clear();
                out
            }
            Expr::Named(n) => {
                let fact = self.eval_with(&n.value, UseCtx::Bind);
                self.bind(&n.target, fact.clone());
                fact
            }
            Expr::If(i) => {
                self.eval(&i.test);
                let a = self.eval_with(&i.body, ctx);
                let b = self.eval_with(&i.orelse, ctx);
                a.join(&b)
            }
            Expr::NumberLiteral(_) | Expr::BooleanLiteral(_) => Fact::of_kind(ValueKind::Scalar),
            Expr::NoneLiteral(_)
            | Expr::StringLiteral(_)
            | Expr::BytesLiteral(_)
            | Expr::EllipsisLiteral(_) => Fact::of_kind(ValueKind::NotTensor),
            Expr::Lambda(l) => {
                let saved = self.env.clone();
                if let Some(params) = &l.parameters {
                    for p in params.iter_non_variadic_params() {
                        if let Some(default) = &p.default {
                            self.eval(default);
                        }
                        self.env
                            .insert(p.parameter.name.id.to_string(), Fact::unknown());
                    }
                }
                self.eval(&l.body);
                self.env = saved;
                Fact::of_kind(ValueKind::NotTensor)
            }
            Expr::ListComp(c) => self.comprehension(&c.generators, &[&c.elt]),
            Expr::SetComp(c) => self.comprehension(&c.generators, &[&c.elt]),
            Expr::Generator(c) => self.comprehension(&c.generators, &[&c.elt]),
            Expr::DictComp(c) => match &c.key {
                Some(key) => self.comprehension(&c.generators, &[key, &c.value]),
                None => self.comprehension(&c.generators, &[&c.value]),
            },
            Expr::Tuple(_) | Expr::List(_) | Expr::Set(_) | Expr::Dict(_) => {
                // A container holds its elements: returning or storing it lets them escape.
                let mut facts = Vec::new();
                match expr {
                    Expr::Tuple(t) => {
                        facts.extend(t.elts.iter().map(|e| self.eval_element_in(e, ctx)));
                        self.note_join_of_copies(&facts, ctx);
                        return sequence_of(&facts);
                    }
                    Expr::List(t) => {
                        facts.extend(t.elts.iter().map(|e| self.eval_element_in(e, ctx)));
                        self.note_join_of_copies(&facts, ctx);
                        return sequence_of(&facts);
                    }
                    Expr::Set(t) => facts.extend(t.elts.iter().map(|e| self.eval(e))),
                    Expr::Dict(d) => {
                        for item in &d.items {
                            if let Some(key) = &item.key {
                                self.eval(key);
                            }
                            facts.push(self.eval(&item.value));
                        }
                    }
                    _ => {}
                }
                let mut out = container_of(&facts);
                if matches!(expr, Expr::Dict(d) if d.items.is_empty()) {
                    // `{}`: it holds no tensor yet.
                    out.placement = Placement::Nowhere;
                }
                out
            }
            Expr::Yield(y) => {
                if let Some(value) = &y.value {
                    let fact = self.eval(value);
                    self.mark_use(&fact, ResultUse::Escapes);
                }
                Fact::unknown()
            }
            Expr::YieldFrom(y) => {
                let fact = self.eval(&y.value);
                self.mark_use(&fact, ResultUse::Escapes);
                Fact::unknown()
            }
            _ => {
                self.visit_children(expr);
                Fact::unknown()
            }
        }
    }

    fn visit_children(&mut self, expr: &Expr) {
        let mut children = ChildEval { walker: self };
        walk_expr(&mut children, expr);
    }

    fn comprehension(&mut self, generators: &[ast::Comprehension], elts: &[&Expr]) -> Fact {
        let saved = self.env.clone();
        for generator in generators {
            self.eval(&generator.iter);
            self.bind(&generator.target, Fact::unknown());
            for cond in &generator.ifs {
                self.eval(cond);
            }
        }
        for elt in elts {
            self.eval(elt);
        }
        self.env = saved;
        Fact::of_kind(ValueKind::NotTensor)
    }

    pub(super) fn lookup(&mut self, name: &str, ctx: UseCtx, at: TextRange) -> Fact {
        if let Some(fact) = self.env.get(name) {
            let mut fact = fact.clone();
            if fact.dtype.is_none() && fact.dtype_sym.is_none() && !fact.is_not_tensor() {
                fact.dtype_sym = Some(Rc::from(name));
            }
            self.record_use(&fact, ctx);
            if ctx != UseCtx::Bind
                && let Some(id) = fact.enlarged.as_ref().and_then(|e| e.copy_origin)
                && let Some(uses) = self.fs.copy_uses.get_mut(id as usize)
                && !uses.contains(&at)
            {
                uses.push(at);
                self.last_copy_use = Some((id, at));
            }
            if ctx != UseCtx::Bind
                && fact
                    .enlarged
                    .as_ref()
                    .is_some_and(|e| e.copy_origin.is_some())
            {
                self.note_copy_read(at, &fact);
            }
            return fact;
        }
        if let Some(fact) = self.fs.globals.get(name) {
            return fact.clone();
        }
        if self.fs.imports.contains_key(name) || name == "torch" || is_non_tensor_module(name) {
            return Fact::of_kind(ValueKind::NotTensor);
        }
        if self.returns.is_some() {
            // A name bound nowhere in this scope (a parameter without a fact): its dtype is
            // the same wherever it is read.
            return Fact {
                dtype_sym: Some(Rc::from(name)),
                ..Fact::unknown()
            };
        }
        Fact::unknown()
    }

    /// The dotted module path an expression names (`F` -> `torch.nn.functional`), unless a local
    /// variable shadows it.
    pub(super) fn module_path(&self, expr: &Expr) -> Option<String> {
        match expr {
            Expr::Name(n) => {
                let id = n.id.as_str();
                if self.env.contains_key(id) {
                    return None;
                }
                if let Some(path) = self.fs.imports.get(id) {
                    return Some(path.clone());
                }
                match id {
                    "torch" => Some("torch".into()),
                    "np" => Some("numpy".into()),
                    "F" => Some("torch.nn.functional".into()),
                    _ if is_non_tensor_module(id) => Some(id.to_string()),
                    _ if self.fs.module_classes.contains(id) => {
                        Some(format!("{}.{id}", self.fs.module.qualname))
                    }
                    _ => None,
                }
            }
            Expr::Attribute(a) => self
                .module_path(&a.value)
                .map(|p| format!("{p}.{}", a.attr.id)),
            _ => None,
        }
    }

    fn eval_attribute(&mut self, expr: &Expr, a: &ast::ExprAttribute, ctx: UseCtx) -> Fact {
        if let Some(key) = dotted_key(expr)
            && self.env.contains_key(&key)
        {
            return self.lookup(&key, ctx, expr.range());
        }
        let attr = a.attr.id.as_str();
        if let Some(path) = self.module_path(&a.value) {
            if crate::analysis::torch_api::is_torch_module(&path)
                && let Some(dtype) = DType::from_torch_name(attr)
            {
                return Fact::of_kind(ValueKind::DTypeValue(Some(dtype)));
            }
            if matches!(path.as_str(), "math" | "numpy") && MATH_CONSTANTS.contains(&attr) {
                return Fact::of_kind(ValueKind::Scalar);
            }
            return Fact::unknown();
        }
        // `torch.finfo(dtype).min` and friends are Python numbers.
        if let Expr::Call(call) = &*a.value
            && let Some(path) = self.module_path(&call.func)
            && (path.ends_with(".finfo") || path.ends_with(".iinfo"))
        {
            self.eval_args(call);
            return Fact::of_kind(ValueKind::Scalar);
        }
        // `self.eps`, `self._end_index`: an attribute `__init__` sets to a number.
        if matches!(&*a.value, Expr::Name(n) if n.id.as_str() == "self")
            && self.class_name.is_some()
            && self.fs.class_numbers.contains(attr)
        {
            return Fact::of_kind(ValueKind::Scalar);
        }
        let consumes = !NON_CONSUMING_ATTRIBUTES.contains(&attr);
        let value = self.eval_receiver(
            &a.value,
            consumes,
            super::broadcast_reads::attribute_ctx(attr),
        );
        match attr {
            "dtype" => Fact {
                dtype_sym: value
                    .dtype
                    .is_none()
                    .then(|| value.dtype_sym.clone())
                    .flatten(),
                ..Fact::of_kind(ValueKind::DTypeValue(value.dtype))
            },
            "device" => Fact::of_kind(ValueKind::DeviceValue).placed_like(&value),
            "shape" | "ndim" | "is_cuda" | "requires_grad" => Fact::of_kind(ValueKind::NotTensor),
            "data" => value,
            "T" | "mT" | "H" | "mH" => {
                let range = a.attr.range;
                let code = TextRange::new(
                    super::after_closing(self.fs.text, a.value.end(), a.attr.range.start()),
                    a.end(),
                );
                self.view_step(value, attr, &[], range, code)
            }
            _ => self.attribute_of_placed(&value).unwrap_or_default(),
        }
    }

    fn eval_call(&mut self, call: &ast::ExprCall, ctx: UseCtx) -> Fact {
        self.forget_mutated_elements(call);
        self.note_in_place_call(call);
        if let Some(resolved) = self.partial_call(call) {
            return self.eval_call(&resolved, ctx);
        }
        if let Some(fact) = self.pass_into_call(call) {
            return fact;
        }
        match &*call.func {
            Expr::Attribute(a) => {
                if let Some(path) = self.module_path(&a.value) {
                    let full = format!("{path}.{}", a.attr.id);
                    if let Some(summary) = self.fs.summaries.get(&full).cloned() {
                        return self.summary_call(&summary, call, ctx);
                    }
                    return self.eval_module_function(&path, a.attr.id.as_str(), call, ctx);
                }
                if let (Expr::Name(recv), Some(class)) = (&*a.value, &self.class_name)
                    && matches!(recv.id.as_str(), "self" | "cls")
                {
                    let key = format!("{}.{class}.{}", self.fs.module.qualname, a.attr.id);
                    if let Some(summary) = self.fs.summaries.get(&key).cloned() {
                        return self.summary_call(&summary, call, ctx);
                    }
                    if let Some(fact) = self.returned_copy_call(&key, call) {
                        return fact;
                    }
                    if let Some(summary) = self.fs.method_returns.get(&key).cloned() {
                        return self.summary_call(&summary, call, ctx);
                    }
                    if let Some(fact) = self.unit_pool_call(a.attr.id.as_str(), call) {
                        return fact;
                    }
                    if let Some(module) = self.fs.class_modules.get(a.attr.id.as_str()).cloned() {
                        if let Some(fact) = self.recurrent_call(&module, call) {
                            return fact;
                        }
                        if let Some(fact) = self.module_call_sink(&module, call) {
                            return fact;
                        }
                    }
                }
                let method = a.attr.id.as_str();
                let consumes =
                    !(VIEW_METHODS.contains(&method) || METADATA_METHODS.contains(&method));
                let recv_ctx = super::broadcast_reads::method_ctx(method);
                let recv = self.eval_receiver(&a.value, consumes, recv_ctx);
                // An elementwise map of a repeated copy: its result carries the copy, whose
                // reads are then its result's reads.
                let mapped_copy = recv
                    .repeat_candidate
                    .filter(|_| super::broadcast_reads::maps_elementwise(method));
                let mut fact = self.eval_method(&a.value, recv, &a.attr, call, ctx);
                self.carry_mapped_copy(&mut fact, mapped_copy, || format!(".{method}()"), ctx);
                super::unit_results::note_kept_dims(&mut fact, None, method, call, true);
                fact
            }
            Expr::Name(n) => {
                let id = n.id.as_str();
                if !self.env.contains_key(id) {
                    let qualname = self.fs.imports.get(id).cloned().or_else(|| {
                        self.fs
                            .module_functions
                            .contains(id)
                            .then(|| format!("{}.{id}", self.fs.module.qualname))
                    });
                    if let Some(q) = qualname {
                        let summary = self.fs.summaries.get(&q).cloned();
                        if let Some(summary) = summary.as_ref().filter(|s| s.enlarged.is_some()) {
                            return self.summary_call(summary, call, ctx);
                        }
                        // A copy this file's function returns: its sites, for what the caller
                        // does with it (before what the function's summary says of its dtype).
                        if let Some(fact) = self.returned_copy_call(&q, call) {
                            return fact;
                        }
                        if let Some(summary) = summary {
                            return self.summary_call(&summary, call, ctx);
                        }
                        if self.fs.module_functions.contains(id)
                            && let Some(summary) = self.fs.local_returns.get(id).cloned()
                        {
                            return self.summary_call(&summary, call, ctx);
                        }
                        if let Some((module, name)) = q.rsplit_once('.')
                            && (crate::analysis::torch_api::is_torch_module(module)
                                || q == "einops.repeat")
                        {
                            return self.eval_module_function(module, name, call, ctx);
                        }
                    }
                }
                // `abs(t)` is `Tensor.__abs__`, which is `torch.abs(t)`: the same elementwise op.
                if id == "abs"
                    && !self.env.contains_key(id)
                    && !self.fs.imports.contains_key(id)
                    && !self.fs.module_functions.contains(id)
                    && call.arguments.keywords.is_empty()
                    && let [arg] = &*call.arguments.args
                    && dotted_key(arg)
                        .and_then(|k| self.env.get(&k))
                        .is_some_and(|f| f.kind == ValueKind::Tensor || f.enlarged.is_some())
                {
                    return self.eval_module_function("torch", "abs", call, ctx);
                }
                // `len(x)` reads a size, not the values (a view has the copy's length).
                let arg_ctx = if id == "len" && !self.env.contains_key(id) {
                    UseCtx::Bind
                } else {
                    UseCtx::Other
                };
                let mut arg_facts: Vec<Fact> = call
                    .arguments
                    .args
                    .iter()
                    .map(|a| self.eval_with(a, arg_ctx))
                    .collect();
                let kw_facts = self.eval_keywords(call);
                arg_facts.extend(kw_facts);
                if !self.env.contains_key(id)
                    && let Some(path) = self.fs.imports.get(id)
                    && self.outside_project(path)
                {
                    // `flash_attn_func(q, k, v)`, `from vendor import kernel`: another package.
                    self.mark_left_project(&arg_facts);
                }
                match id {
                    // `abs(t)`, `round(t)`, `max(t, 0)`, `min(a, b)` of a tensor are tensors.
                    "abs" | "round" | "min" | "max"
                        if arg_facts
                            .iter()
                            .any(|f| f.kind == ValueKind::Tensor || f.enlarged.is_some()) =>
                    {
                        let tensors: Vec<&Fact> = arg_facts
                            .iter()
                            .filter(|f| f.kind == ValueKind::Tensor || f.enlarged.is_some())
                            .collect();
                        let dtype = tensors[0]
                            .dtype
                            .filter(|d| tensors.iter().all(|f| f.dtype == Some(*d)));
                        Fact::tensor(dtype, None).placed(operands_placement(&tensors))
                    }
                    // `dict(mask=m)`, `(a, b)` built by `tuple(...)`, an output class
                    // `BaseModelOutput(mask=m)`: the value holds its arguments.
                    // `setattr(self, "mask", m)` stores it on an object.
                    "setattr" => {
                        for fact in &arg_facts {
                            self.mark_use(fact, ResultUse::Escapes);
                        }
                        Fact::of_kind(ValueKind::NotTensor)
                    }
                    "dict" | "list" | "tuple" | "set" => container_of(&arg_facts),
                    _ if id.starts_with(|c: char| c.is_ascii_uppercase()) => {
                        container_of(&arg_facts)
                    }
                    _ if SCALAR_BUILTINS.contains(&id) => Fact::of_kind(ValueKind::Scalar),
                    _ if NON_TENSOR_BUILTINS.contains(&id) => Fact::of_kind(ValueKind::NotTensor),
                    _ => Fact::unknown(),
                }
            }
            _ => {
                self.eval(&call.func);
                let launch = self.is_kernel_launch(&call.func);
                let facts = self.eval_all_args(call);
                if launch {
                    // `kernel[grid](x, ...)`: a compiled kernel reads its tensors as dense
                    // memory through their pointers.
                    for fact in &facts {
                        self.mark_use(fact, ResultUse::NeedsDense);
                        self.mark_use(fact, ResultUse::LeavesProject);
                    }
                } else if matches!(&*call.func, Expr::Call(_)) {
                    // `make_kernel(name)(x, ...)`: a callable computed at run time, whose code
                    // the walk cannot see (a compiled extension's function, a cached kernel).
                    self.mark_left_project(&facts);
                }
                Fact::unknown()
            }
        }
    }

    fn eval_binop(&mut self, b: &ast::ExprBinOp) -> Fact {
        // `[x] * n` is list repetition, not arithmetic.
        if matches!(&*b.left, Expr::List(_) | Expr::Tuple(_)) {
            self.eval(&b.left);
            self.eval(&b.right);
            return Fact::of_kind(ValueKind::NotTensor);
        }
        let left = self.eval_with(&b.left, UseCtx::Broadcast);
        let right = self.eval_with(&b.right, UseCtx::Broadcast);
        if b.op != Operator::MatMult {
            let (enlarged_side, scalar_side, scalar_expr) = if left.enlarged.is_some() {
                (&left, &right, &*b.right)
            } else {
                (&right, &left, &*b.left)
            };
            if enlarged_side.enlarged.is_some()
                && Self::counts_as_scalar(scalar_expr, scalar_side, enlarged_side)
                && !self.is_full_size_operand(scalar_expr, enlarged_side)
            {
                // A number held in a name may be a float: an integer tensor's result dtype is
                // then not known.
                let dtype = if scalar_side.kind == ValueKind::Scalar
                    || enlarged_side.dtype.is_some_and(DType::is_floating)
                {
                    arithmetic_dtype(enlarged_side.dtype, b.op, scalar_is_float(b))
                } else {
                    None
                };
                let recv = enlarged_side.clone();
                let code = b.range;
                self.sink_receiver = None;
                return self.sink(&recv, SinkKind::Elementwise, b.range, code, dtype);
            }
        }
        if b.op != Operator::MatMult {
            self.note_number_operand(b, &left, &right);
        }
        if b.op != Operator::MatMult
            && let Some(fact) = self.op_before_enlarging(&left, &right, b.range)
        {
            return fact;
        }
        for (side, other) in [(&left, &right), (&right, &left)] {
            if b.op == Operator::MatMult {
                self.mark_use(side, ResultUse::Contracted);
            } else if side.enlarged.is_none() && !other.is_not_tensor() {
                self.mark_use(side, ResultUse::Combined);
            }
        }
        let placement = operands_placement(&[&left, &right]);
        match (&left.kind, &right.kind) {
            (ValueKind::Scalar, ValueKind::Scalar) => Fact::of_kind(ValueKind::Scalar),
            (ValueKind::Tensor, ValueKind::Scalar) => with_scalar_dtype_name(
                Fact::tensor(
                    arithmetic_dtype(left.dtype, b.op, scalar_is_float(b)),
                    left.shape.clone(),
                ),
                &left,
            )
            .placed(placement),
            (ValueKind::Scalar, ValueKind::Tensor) => with_scalar_dtype_name(
                Fact::tensor(
                    arithmetic_dtype(right.dtype, b.op, scalar_is_float(b)),
                    right.shape.clone(),
                ),
                &right,
            )
            .placed(placement),
            (ValueKind::Tensor, _) | (_, ValueKind::Tensor) => {
                // `bool & bool`, `bool | bool` stay bool.
                let dtype = if left.dtype == right.dtype {
                    left.dtype
                } else {
                    None
                };
                // Broadcast shapes (`t[:, 1] * t[:, 2]`, `x[:, None] * x[None, :]`).
                let shape = left.broadcast_shape(&right);
                Fact::tensor(dtype, shape).placed(placement)
            }
            // `(a > 0) & ~(b < 0)` of values of unknown kind: still bool.
            _ if left.dtype == Some(DType::Bool)
                && right.dtype == Some(DType::Bool)
                && matches!(b.op, Operator::BitAnd | Operator::BitOr | Operator::BitXor) =>
            {
                Fact {
                    dtype: Some(DType::Bool),
                    placement,
                    ..Fact::unknown()
                }
            }
            // `1.0 - m[:, None, None, :]` of a value of unknown kind: whatever it is, a number
            // does not change its shape.
            (ValueKind::Scalar, _) | (_, ValueKind::Scalar) => {
                let other = if left.kind == ValueKind::Scalar {
                    &right
                } else {
                    &left
                };
                Fact {
                    shape: other.shape.clone(),
                    ..Fact::unknown()
                }
            }
            // `splits[1:] - splits[:-1]`: a slice is never a number, and sequences do not
            // subtract, so the difference is an array (per-row counts), not a Python int.
            _ if b.op == Operator::Sub
                && super::enlarge::is_sliced(&b.left)
                && super::enlarge::is_sliced(&b.right)
                && !left.is_not_tensor()
                && !right.is_not_tensor() =>
            {
                Fact {
                    kind: ValueKind::Tensor,
                    shape: left.broadcast_shape(&right),
                    placement,
                    ..Fact::unknown()
                }
            }
            // `t[:, 1] * t[:, 2]` of values of unknown kind: their shapes broadcast.
            _ if left.shape.is_some() && right.shape.is_some() => Fact {
                shape: left.broadcast_shape(&right),
                ..Fact::unknown()
            },
            _ => Fact::unknown(),
        }
    }

    pub(super) fn eval_args_from(&mut self, call: &ast::ExprCall, skip: usize) {
        for arg in call.arguments.args.iter().skip(skip) {
            self.eval(arg);
        }
        self.eval_keywords(call);
    }
}

/// Where the result of an operation on these operands lives: the tensors' common placement
/// (scalars and non-tensors do not count; an operand of unknown kind makes it unknown). A host
/// tensor of one dim or more decides alone: torch takes only 0-d host tensors into an op on
/// another device, so with any other operand the op runs on the host (or raises).
fn operands_placement(facts: &[&Fact]) -> Placement {
    if facts.iter().any(|f| is_host_array(f)) {
        return Placement::Host;
    }
    let mut out: Option<Placement> = None;
    for fact in facts {
        if fact.is_not_tensor() {
            continue;
        }
        let p = fact.placement;
        out = Some(match out {
            None => p,
            Some(o) => o.combine(p),
        });
    }
    out.unwrap_or_default()
}

/// A tensor on the host whose rank is known to be one or more (`torch.arange(n)`).
fn is_host_array(fact: &Fact) -> bool {
    fact.placement == Placement::Host
        && fact.kind == ValueKind::Tensor
        && fact.shape.as_ref().is_some_and(|s| !s.0.is_empty())
}

/// Evaluates each direct child expression with the walker (for expression kinds without rules of
/// their own: f-strings, dicts, slices, awaits, ...).
struct ChildEval<'w, 's, 'a> {
    walker: &'w mut Walker<'s, 'a>,
}

impl<'e> Visitor<'e> for ChildEval<'_, '_, '_> {
    fn visit_expr(&mut self, expr: &'e Expr) {
        self.walker.eval(expr);
    }
}

/// The result of arithmetic between a tensor and a number keeps the name of the tensor's dtype
/// when its dtype is not known but named (as an elementwise sink's result does): `(1.0 - m) * min`
/// of an `m` made with `dtype=h.dtype` (a floating dtype, which a Python number does not change)
/// is still in `h`'s dtype, so `.to(h.dtype)` of it is a no-op.
fn with_scalar_dtype_name(mut result: Fact, tensor: &Fact) -> Fact {
    if tensor.dtype.is_none() && tensor.dtype_sym.is_some() {
        result.dtype = None;
        result.dtype_sym = tensor.dtype_sym.clone();
    }
    result
}
