//! Tensor methods (`x.float()`, `x.to(...)`, `x.cuda()`, `x.contiguous()`, `x.exp()`, ...): which
//! of them write a full-size result (a *sink*), and the recording of a site when the receiver is
//! enlarged.

use std::rc::Rc;

use crate::source::ast::{self, Expr};
use crate::source::{Ranged, TextRange};

use crate::analysis::census::SkipReason;
use crate::analysis::dtype_infer::{ToArg, classify_to_arg};
use crate::analysis::facts::{
    DType, EnlargeKind, Enlarged, Fact, Placement, Shape, SiteId, Step, StepRole, ValueKind,
};
use crate::analysis::op_table::{self, ResultDtype};
use crate::analysis::torch_api::{
    BINARY_ELEMENTWISE, COPY_ENLARGERS, DEVICE_METHODS, DTYPE_PRESERVING, MATERIALIZE_METHODS,
    NEEDS_CONTIGUOUS, NON_TENSOR_METHODS, PIN_METHODS, SCALAR_METHODS, UNARY_ELEMENTWISE,
    VIEW_ENLARGERS, VIEW_METHODS, returns_bool, returns_int64,
};
use crate::analysis::{SinkKind, Site};

use super::devices::named_device;
use super::expr::UseCtx;
use super::stmt::{ResultUse, Walker, dotted_key};
use super::torch_functions::CONTRACTIONS;

/// Reductions and scans that take `dtype=`: the input is converted to it first, at full size.
const REDUCTIONS_WITH_DTYPE: &[&str] = &[
    "sum",
    "mean",
    "nansum",
    "nanmean",
    "prod",
    "cumsum",
    "cumprod",
    "softmax",
    "log_softmax",
];

/// Whether the mask of an out-of-place `masked_fill` on an enlarged value lacks the enlarged
/// dims: a number, or a mask computed from the enlargement's own source (`am[:, None] == 0` for
/// `am[:, None].expand(b, h, q, k)`), which is not itself enlarged.
fn mask_lacks_enlarged_dims(text: &str, mask_expr: &Expr, mask: &Fact, source: &str) -> bool {
    if mask.enlarged.is_some() || !mask.sink_results.is_empty() {
        return false;
    }
    if mask.kind == ValueKind::Scalar {
        return true;
    }
    let mask_code = crate::analysis::shape_infer::collapse_code(
        text.get(mask_expr.range().to_std_range()).unwrap_or(""),
    );
    !source.is_empty()
        && mask_code.match_indices(source).any(|(at, _)| {
            let before = mask_code[..at].chars().next_back();
            let after = mask_code[at + source.len()..].chars().next();
            let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
            // The source itself, not a longer name or an attribute of it (`am.T` is fine).
            !word(before) && before != Some('.') && !word(after)
        })
}

/// Methods that store their arguments in a container (list, deque, dict, queue) or on a module.
const CONTAINER_STORES: &[&str] = &[
    "register_buffer",
    "append",
    "appendleft",
    "extend",
    "insert",
    "setdefault",
    "update",
    "put",
    "put_nowait",
];

impl Walker<'_, '_> {
    fn method_range(attr: &ast::Identifier, call: &ast::ExprCall) -> TextRange {
        TextRange::new(attr.range.start(), call.end())
    }

    pub(super) fn eval_method(
        &mut self,
        recv_expr: &Expr,
        recv: Fact,
        attr: &ast::Identifier,
        call: &ast::ExprCall,
        ctx: UseCtx,
    ) -> Fact {
        let name = attr.id.as_str();
        let range = Self::method_range(attr, call);
        let code = TextRange::new(
            super::after_closing(self.fs.text, recv_expr.end(), attr.range.start()),
            call.end(),
        );
        let mut args: Vec<&Expr> = call.arguments.args.iter().collect();
        // `x.unsqueeze(dim=1)` says the same as `x.unsqueeze(1)`.
        if name == "unsqueeze"
            && args.is_empty()
            && let Some(dim) = crate::analysis::shape_infer::keyword(call, "dim")
        {
            args.push(dim);
        }

        if CONTAINER_STORES.contains(&name) && recv.kind != ValueKind::Tensor {
            // `outputs.append(y)`: the value now lives in a container that may leave.
            let mut facts: Vec<Fact> = args.iter().map(|a| self.eval(a)).collect();
            facts.extend(self.eval_keywords(call));
            for fact in &facts {
                self.mark_use(fact, ResultUse::Escapes);
            }
            self.note_list_store(recv_expr, &recv, name, &facts);
            return Fact::unknown();
        }
        if recv.is_not_tensor() {
            self.eval_args(call);
            return Fact::unknown();
        }
        if NEEDS_CONTIGUOUS.contains(&name) {
            // A raw pointer is read as dense memory (kernel wrappers do pointer arithmetic).
            let need = if name == "data_ptr" {
                ResultUse::NeedsDense
            } else {
                ResultUse::NeedsContiguous
            };
            self.mark_use(&recv, need);
        }
        if crate::analysis::torch_api::is_in_place_method(name) {
            self.eval_args(call);
            self.mark_in_place(&recv);
            return recv;
        }
        if VIEW_ENLARGERS.contains(&name) || COPY_ENLARGERS.contains(&name) {
            let kind = if VIEW_ENLARGERS.contains(&name) {
                EnlargeKind::View
            } else {
                EnlargeKind::Copy
            };
            let arg_facts = self.eval_args(call);
            return self.enlarge(
                recv_expr, recv, kind, name, &args, &arg_facts, call, range, code, ctx,
            );
        }
        if name == "masked_fill" {
            // The mask is broadcast against the receiver.
            let mask = args
                .first()
                .map(|m| (*m, self.eval_with(m, UseCtx::Broadcast)));
            let values: Vec<(&Expr, Fact)> =
                args.iter().skip(1).map(|a| (*a, self.eval(a))).collect();
            self.eval_keywords(call);
            // Out of place on an enlarged receiver, with a mask that does not span the enlarged
            // dims and a number to fill: the same op on the small source gives the same values.
            if let (Some(enlarged), Some((mask_expr, mask))) = (&recv.enlarged, &mask)
                && mask_lacks_enlarged_dims(self.fs.text, mask_expr, mask, &enlarged.receiver_code)
                && values.len() == 1
                && values
                    .iter()
                    .all(|(e, f)| Self::counts_as_scalar(e, f, &recv))
            {
                self.sink_receiver = Some(recv_expr.range());
                let result = self.sink(&recv, SinkKind::Elementwise, range, code, recv.dtype);
                if mask.kind != ValueKind::Scalar {
                    self.mark_small_tensor_operand(&result);
                }
                return result;
            }
            return Fact::tensor(recv.dtype, recv.shape.clone())
                .same_dtype_as(&recv)
                .placed_like(&recv);
        }
        if matches!(name, "gather" | "take_along_dim") {
            // `x.gather(1, index)`: the index is read like a broadcast operand, and so was the
            // receiver (see `broadcast_reads`); the result is dense, of the index's shape.
            self.eval_index_args(call, None, if name == "gather" { 1 } else { 0 });
            return Fact::tensor(recv.dtype, None).placed_like(&recv);
        }
        if REDUCTIONS_WITH_DTYPE.contains(&name)
            && recv.enlarged.is_some()
            && let Some(dtype) = call
                .arguments
                .keywords
                .iter()
                .find(|k| k.arg.as_ref().is_some_and(|a| a.id.as_str() == "dtype"))
        {
            // `m.sum(dim=-1, dtype=torch.float32)`: the input is converted at full size before
            // it is reduced.
            self.eval_args(call);
            let target = match self.eval(&dtype.value).kind {
                ValueKind::DTypeValue(d) => d,
                _ => None,
            };
            if target.is_some() && target == recv.dtype {
                return Fact::tensor(recv.dtype, None).placed_like(&recv);
            }
            self.sink_receiver = Some(recv_expr.range());
            let site = self.sink(
                &recv,
                SinkKind::Cast {
                    target,
                    certain: false,
                    in_reduction: true,
                    inside: None,
                },
                range,
                code,
                target,
            );
            return Fact {
                shape: None,
                ..site
            };
        }
        let arg_facts = self.eval_args_in(call, super::broadcast_reads::method_ctx(name));
        if CONTRACTIONS.contains(&name) {
            // `q.matmul(k)`: both read in the layout given.
            self.mark_use(&recv, ResultUse::Contracted);
            for fact in &arg_facts {
                self.mark_use(fact, ResultUse::Contracted);
            }
        }
        self.sink_receiver = Some(recv_expr.range());
        if VIEW_METHODS.contains(&name) {
            let target_shape = arg_facts.first().and_then(|f| f.shape.clone());
            let mut out = self.view_step(recv, name, &args, range, code);
            if matches!(name, "reshape_as" | "view_as")
                && let Some(enlarged) = &out.enlarged
                && enlarged.kind == EnlargeKind::View
                && (target_shape.is_none() || target_shape != enlarged.shape)
            {
                // `reshape_as(x)` to a shape not known to be the view's may merge its broadcast
                // dims, which copies there: a later conversion "may" write the full size (it may
                // be the reshape that did), and is not blamed as certain.
                let mut e = (**enlarged).clone();
                e.may = true;
                if target_shape.is_some() {
                    e.shape.clone_from(&target_shape);
                    out.shape = target_shape;
                }
                out.enlarged = Some(Rc::new(e));
            }
            return out;
        }
        if let Some(target) = DType::from_cast_method(name)
            && args.is_empty()
        {
            return self.cast(&recv, Some(target), true, range, code);
        }
        match name {
            "to" => return self.eval_to(&recv, &args, &arg_facts, call, range, code),
            "type" => {
                let Some(arg) = args.first() else {
                    return Fact::of_kind(ValueKind::NotTensor);
                };
                let certain = matches!(arg, Expr::StringLiteral(_))
                    || matches!(arg_facts[0].kind, ValueKind::DTypeValue(_));
                let target = match arg {
                    Expr::StringLiteral(s) => {
                        let s = s.value.to_str();
                        if s.contains("cuda") {
                            return self.device_move(
                                &recv,
                                Placement::Device,
                                None,
                                (range, code),
                                DType::from_tensor_type_name(s),
                            );
                        }
                        DType::from_tensor_type_name(s)
                    }
                    _ => match &arg_facts[0].kind {
                        ValueKind::DTypeValue(d) => *d,
                        _ => None,
                    },
                };
                return self.cast(&recv, target, certain, range, code);
            }
            "type_as" => {
                let dtype = arg_facts.first().and_then(|f| f.dtype);
                let target = arg_facts
                    .first()
                    .map_or(Placement::Unknown, |f| f.placement);
                let device = arg_facts
                    .first()
                    .and_then(|f| f.device_sym.as_ref())
                    .map(|sym| sym.device.clone());
                let dtype = dtype.or(recv.dtype);
                return self.device_move(&recv, target, device, (range, code), dtype);
            }
            _ => {}
        }
        if PIN_METHODS.contains(&name) {
            // A dense copy in pinned host memory, made for the transfer that follows: the code
            // needs it as written (not a sink), and it is no longer the enlarged value.
            return Fact::tensor(recv.dtype, recv.shape.clone())
                .same_dtype_as(&recv)
                .placed(Placement::Host);
        }
        if DEVICE_METHODS.contains(&name) {
            let target = match name {
                "cpu" => Placement::Host,
                _ => Placement::Device,
            };
            return self.device_move(&recv, target, None, (range, code), recv.dtype);
        }
        if MATERIALIZE_METHODS.contains(&name) {
            if recv
                .enlarged
                .as_ref()
                .is_some_and(|e| e.kind == EnlargeKind::View)
            {
                return self.sink(&recv, SinkKind::Materialize, range, code, recv.dtype);
            }
            if name == "contiguous" && recv.enlarged.is_some() {
                // A repeated copy is contiguous already: torch returns the tensor itself.
                return self.view_step(recv, name, &[], range, code);
            }
            return Fact::tensor(recv.dtype, recv.shape.clone())
                .same_dtype_as(&recv)
                .placed_like(&recv);
        }
        // The op table's result dtype class (comparisons are bool, `exp` of an integer is float).
        let op = op_table::method(name);
        let result_dtype = match op.map(|o| o.dtype) {
            Some(d @ (ResultDtype::Bool | ResultDtype::Int64 | ResultDtype::Float)) => {
                d.of_input(recv.dtype)
            }
            _ if returns_bool(name) => Some(DType::Bool),
            _ => recv.dtype,
        };
        if UNARY_ELEMENTWISE.contains(&name) && args.is_empty() {
            return self.sink(&recv, SinkKind::Elementwise, range, code, result_dtype);
        }
        if BINARY_ELEMENTWISE.contains(&name)
            && !arg_facts.is_empty()
            && args.iter().zip(&arg_facts).all(|(a, f)| {
                Self::counts_as_scalar(a, f, &recv) && !self.is_full_size_operand(a, &recv)
            })
            && call
                .arguments
                .keywords
                .iter()
                .all(|k| matches!(k.value, Expr::NumberLiteral(_) | Expr::UnaryOp(_)))
        {
            return self.sink(&recv, SinkKind::Elementwise, range, code, result_dtype);
        }
        if let Some(fact) = self.table_method_sink(&recv, name, call, &arg_facts, range, code) {
            return fact;
        }
        // A tensor method's result lives where its receiver does (`x.new_ones`, `x.sum()`).
        // Bool and int64 results by the op table; the hand lists keep what it cannot probe
        // (`bucketize`, `searchsorted` need sorted boundaries).
        if let Some(dtype) = op_table::fixed_result_dtype(op) {
            return Fact::tensor(Some(dtype), None).placed_like(&recv);
        }
        match name {
            _ if SCALAR_METHODS.contains(&name) => Fact::of_kind(ValueKind::Scalar),
            _ if NON_TENSOR_METHODS.contains(&name) => Fact::of_kind(ValueKind::NotTensor),
            _ if DTYPE_PRESERVING.contains(&name) => Fact::tensor(recv.dtype, recv.shape.clone())
                .same_dtype_as(&recv)
                .placed_like(&recv),
            _ if returns_bool(name) => Fact::tensor(Some(DType::Bool), None).placed_like(&recv),
            _ if returns_int64(name) => Fact::tensor(Some(DType::Int64), None).placed_like(&recv),
            // What torch says of the result's dtype: the receiver's (`p.bernoulli()`).
            _ if recv.kind == ValueKind::Tensor
                && op.is_some_and(|op| op.dtype == op_table::ResultDtype::Same) =>
            {
                Fact::tensor(None, None)
                    .same_dtype_as(&recv)
                    .placed_like(&recv)
            }
            _ if recv.kind == ValueKind::Tensor || recv.enlarged.is_some() => {
                Fact::tensor(None, None).placed_like(&recv)
            }
            _ => Fact::unknown().placed(recv.placement),
        }
    }

    /// `feats.append(y.cpu())` on a list: the list's tensors live where each appended one does
    /// (any other store, or a value that may not be a tensor, makes that unknown).
    fn note_list_store(&mut self, recv_expr: &Expr, recv: &Fact, name: &str, facts: &[Fact]) {
        let Some(key) = dotted_key(recv_expr) else {
            return;
        };
        if recv.kind != ValueKind::NotTensor || !self.env.contains_key(&key) {
            return;
        }
        // An attribute of an object moved to a named device (`batch.mask`) counts as a tensor
        // there.
        let (placement, device_sym) = match (name, facts) {
            ("append", [item]) if item.kind == ValueKind::Tensor || item.device_sym.is_some() => (
                recv.placement.combine(item.placement),
                match () {
                    _ if recv.placement == Placement::Nowhere => item.device_sym.clone(),
                    _ if recv.device_sym == item.device_sym => item.device_sym.clone(),
                    _ => None,
                },
            ),
            _ => (Placement::Unknown, None),
        };
        if let Some(fact) = self.env.get_mut(&key) {
            fact.placement = placement;
            fact.device_sym = device_sym;
        }
    }

    /// `.to(...)`: a cast when only a dtype is given, a device move otherwise.
    fn eval_to(
        &mut self,
        recv: &Fact,
        args: &[&Expr],
        arg_facts: &[Fact],
        call: &ast::ExprCall,
        range: TextRange,
        code: TextRange,
    ) -> Fact {
        // The keywords below are evaluated after the receiver was noted (`dtype=next(
        // self.parameters()).dtype` is a method call of its own): note it again before the sink.
        let receiver = self.sink_receiver;
        let mut dtype: Option<Option<DType>> = None;
        let mut device = false;
        let mut target = Placement::Unknown;
        let mut target_device = None;
        // The name of the dtype asked for, when only that is known (`.to(m.dtype)`).
        let mut dtype_sym = None;
        // Anything beyond the dtype (copy=, non_blocking=, memory_format=) makes the reorder unsafe.
        let mut certain = true;
        for (arg, fact) in args.iter().zip(arg_facts) {
            match classify_to_arg(arg, fact) {
                ToArg::Dtype(d, sure) => {
                    dtype = Some(d);
                    dtype_sym = fact.dtype_sym.clone();
                    certain &= sure;
                }
                ToArg::Device => {
                    device = true;
                    target = device_placement(arg, fact);
                    target_device = named_device(arg, fact);
                }
                ToArg::Tensor => {
                    device = true;
                    target = fact.placement;
                    target_device = fact.device_sym.as_ref().map(|sym| sym.device.clone());
                    dtype = dtype.or(Some(fact.dtype));
                }
                ToArg::Ignore => certain = false,
            }
        }
        for kw in &call.arguments.keywords {
            let Some(name) = &kw.arg else { continue };
            match name.id.as_str() {
                "dtype" => {
                    let fact = self.eval(&kw.value);
                    match classify_to_arg(&kw.value, &fact) {
                        ToArg::Dtype(d, sure) => {
                            dtype = Some(d);
                            dtype_sym = fact.dtype_sym.clone();
                            certain &= sure;
                        }
                        _ => {
                            dtype = Some(None);
                            certain = false;
                        }
                    }
                }
                "device" => {
                    device = true;
                    let fact = self.eval(&kw.value);
                    target = device_placement(&kw.value, &fact);
                    target_device = named_device(&kw.value, &fact);
                }
                _ => certain = false,
            }
        }
        self.sink_receiver = receiver;
        if device {
            let result = dtype.flatten().or(recv.dtype);
            return self.device_move(recv, target, target_device, (range, code), result);
        }
        // `.to(m.dtype)` of a value made from `m` (or made with `dtype=m.dtype`): a no-op.
        if dtype == Some(None)
            && recv.dtype.is_none()
            && dtype_sym.is_some()
            && dtype_sym == recv.dtype_sym
        {
            if let Some(sym) = &dtype_sym {
                self.record_skip(recv, range, SkipReason::SameDtypeAs(sym.to_string()));
            }
            // On a path joined with the enlarged value (`if m is not None: out = e + pad` /
            // `else: out = e`), the name is the enlarged value's: a full-size result of the
            // other path whose dtype may have been promoted counts as converted.
            if recv.enlarged.is_some() {
                for id in &recv.sink_results {
                    if self.fs.promoted_results.contains(id)
                        && let Some(site) = self.fs.sites.get_mut(*id as usize)
                    {
                        site.result_converted = true;
                    }
                }
            }
            return recv.clone();
        }
        match dtype {
            Some(target) => {
                let mut result = self.cast(recv, target, certain, range, code);
                // `.to(h.dtype)`: whatever that dtype is, the result has it.
                if target.is_none() && dtype_sym.is_some() {
                    result.dtype_sym = dtype_sym;
                }
                result
            }
            None => Fact::tensor(recv.dtype, recv.shape.clone()).placed_like(recv),
        }
    }

    fn cast(
        &mut self,
        recv: &Fact,
        target: Option<DType>,
        certain: bool,
        range: TextRange,
        code: TextRange,
    ) -> Fact {
        if let Some(dtype) = target
            && recv.dtype == target
        {
            // Converting to the dtype it already has returns the tensor itself: no copy.
            self.record_skip(recv, range, SkipReason::AlreadyDtype(dtype));
            return recv.clone();
        }
        self.sink(
            recv,
            SinkKind::Cast {
                target,
                certain,
                in_reduction: false,
                inside: None,
            },
            range,
            code,
            target,
        )
    }

    /// The enlarged value after a move that may be a no-op: the move is a step of its chain, and
    /// the value is only "may" enlarged unless the move surely does nothing.
    pub(super) fn kept_through_move(
        &self,
        enlarged: &Rc<Enlarged>,
        noop: bool,
        range: TextRange,
        code: TextRange,
    ) -> Rc<Enlarged> {
        let mut e = (**enlarged).clone();
        e.may |= !noop;
        e.steps.push(Step {
            role: StepRole::View,
            file: None,
            range,
            code: self.fs.code(code),
            receiver: None,
            stmt: self.stmt_range,
        });
        Rc::new(e)
    }

    /// An operation that writes a full-size result. When the receiver is enlarged, that is a
    /// site; either way the result is an ordinary tensor, where the receiver was.
    pub(super) fn sink(
        &mut self,
        recv: &Fact,
        kind: SinkKind,
        range: TextRange,
        code: TextRange,
        result_dtype: Option<DType>,
    ) -> Fact {
        let mut result = Fact::tensor(result_dtype, recv.shape.clone()).placed_like(recv);
        if result_dtype.is_none() && matches!(kind, SinkKind::Materialize | SinkKind::Elementwise) {
            result.dtype_sym = recv.dtype_sym.clone();
        }
        if recv.enlarged.is_none() {
            // A full-size result converted again: a second full-size copy (here, or by a
            // caller of the function that returned it).
            for id in &recv.sink_results {
                if let Some(site) = self.fs.sites.get_mut(*id as usize) {
                    if site.scope_range.contains_range(range) {
                        site.result_converted = true;
                    } else {
                        site.result_converted_by_caller = true;
                    }
                }
            }
        }
        if let Some(enlarged) = &recv.enlarged {
            let id = self.record_site(
                enlarged,
                kind,
                range,
                code,
                result_dtype,
                recv.shape.clone(),
            );
            if let Some(site) = self.fs.sites.get_mut(id as usize) {
                site.source_dtype = recv.dtype;
            }
            result.sink_results = vec![id];
        }
        result
    }

    /// Marks the site whose result `result` is: its other operand is a tensor lacking the
    /// enlarged dims.
    pub(super) fn mark_small_tensor_operand(&mut self, result: &Fact) {
        for id in &result.sink_results {
            if let Some(site) = self.fs.sites.get_mut(*id as usize) {
                site.small_tensor_operand = true;
            }
        }
    }

    fn record_site(
        &mut self,
        enlarged: &Rc<Enlarged>,
        sink: SinkKind,
        range: TextRange,
        code: TextRange,
        result_dtype: Option<DType>,
        result_shape: Option<Shape>,
    ) -> SiteId {
        let made_at = enlarged
            .steps
            .iter()
            .find(|s| s.role == StepRole::Enlarge)
            .or(enlarged.steps.first())
            .map_or(u32::MAX, |s| s.range.start().to_u32());
        let key = (range.start().to_u32(), range.end().to_u32(), made_at);
        if let Some(&id) = self.fs.site_index.get(&key) {
            return id;
        }
        let id = self.fs.sites.len() as SiteId;
        // Only the expression the sink method is called on: a receiver noted for another call
        // (one inside the arguments) would name the wrong value.
        let text = self.fs.text;
        let at = code.start();
        let receiver = self
            .sink_receiver
            .take()
            .filter(|r| r.end() <= at && super::after_closing(text, r.end(), at) == at);
        let code = self.fs.code(code);
        let receiver_code = receiver.map(|r| self.fs.code(r));
        let constants = self.constants_read(
            result_shape.as_ref().or(enlarged.shape.as_ref()),
            enlarged.growth.as_deref(),
        );
        self.fs.sites.push(Site {
            sink,
            enlarged: (**enlarged).clone(),
            sink_step: Step {
                role: StepRole::Sink,
                file: None,
                range,
                code,
                receiver,
                stmt: self.stmt_range,
            },
            stmt_range: self.stmt_range,
            result_dtype,
            source_dtype: None,
            result_shape,
            scope_range: self.scope_range,
            receiver_code,
            repeats_earlier_on_line: false,
            result_escapes: false,
            result_returned: false,
            result_needs_contiguous: false,
            result_needs_dense: false,
            result_leaves_project: false,
            discarded: false,
            written_in_place: false,
            copy_read_elsewhere: false,
            only_broadcast_reads: false,
            returned_to_callers: None,
            merged_later: false,
            merged_rank: None,
            result_converted: false,
            result_converted_by_caller: false,
            result_is_conv_weight: false,
            moves_across_devices: false,
            move_is_noop: false,
            already_on: None,
            small_tensor_operand: false,
            other_operand_enlarged: false,
            result_is_loop_state: false,
            result_combined: false,
            result_contracted: false,
            along_dim: false,
            constants,
        });
        self.fs.site_index.insert(key, id);
        id
    }
}

/// The memory a device argument names: `"cpu"` (or `torch.device("cpu")`, `t.device` of a host
/// tensor) is the host; any other device value is a device, or unknown when nothing says which.
pub(super) fn device_placement(arg: &Expr, fact: &Fact) -> Placement {
    match arg {
        Expr::StringLiteral(s) if s.value.to_str().starts_with("cpu") => Placement::Host,
        Expr::StringLiteral(_) | Expr::NumberLiteral(_) => Placement::Device,
        _ => fact.placement,
    }
}
