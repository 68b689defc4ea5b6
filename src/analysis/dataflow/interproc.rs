//! Across functions: a function body is walked in a fresh scope and, when it returns an enlarged
//! value, summarized; a call of a summarized function continues the callee's chain with the
//! caller's arguments substituted into its shape.

use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use crate::source::Ranged;
use crate::source::ast::{self, Expr};

use crate::analysis::dtype_infer::annotation_fact;
use crate::analysis::facts::SiteId;
use crate::analysis::facts::{Dim, Fact, Placement, Step, StepRole, SymExpr, ValueKind};
use crate::analysis::shape_infer::sym_expr;
use crate::analysis::{ElementKey, FunctionSummary, SinkKind};

use super::expr::UseCtx;
use super::stmt::{Elements, Walker};
use super::{Env, FileState, HelperCall};

impl Walker<'_, '_> {
    /// A call of a function of this file that returns a materialized broadcast view: its result
    /// is that copy (a write to it in place shows the copy was needed).
    pub(super) fn returned_copy_call(
        &mut self,
        qualname: &str,
        call: &ast::ExprCall,
    ) -> Option<Fact> {
        let ids = self.fs.returned_copies.get(qualname)?.clone();
        self.eval_args(call);
        Some(Fact {
            kind: ValueKind::Tensor,
            sink_results: ids,
            ..Fact::default()
        })
    }

    /// A call of a summarized function: for an enlarged result, the callee's chain plus this
    /// call; the dtype of the argument its result takes the dtype of. When the callee returns a
    /// `repeat` that `expand` could replace, how this call's result is read is recorded for it
    /// (see [`CallerReads`](crate::analysis::CallerReads)).
    pub(super) fn summary_call(
        &mut self,
        summary: &FunctionSummary,
        call: &ast::ExprCall,
        ctx: UseCtx,
    ) -> Fact {
        let (positional, keywords) =
            self.eval_args_for(call, &summary.params, &summary.broadcast_params);
        let mut fact = self.summary_fact(summary, call);
        if fact.dtype.is_none()
            && let Some(param) = &summary.dtype_param
            && let Some(arg) = bound_argument(&summary.params, param, call, &positional, &keywords)
        {
            let (dtype, sym) = match arg.kind {
                ValueKind::DTypeValue(d) => (d, arg.dtype_sym.clone()),
                ValueKind::Tensor | ValueKind::Unknown | ValueKind::DTypeGuess => {
                    (arg.dtype, arg.dtype_sym.clone())
                }
                _ => (None, None),
            };
            fact.dtype = dtype;
            fact.dtype_sym = if dtype.is_none() { sym } else { None };
        }
        if summary.returns_repeat && summary.element.is_none() && !summary.is_method {
            let name = match &*call.func {
                Expr::Attribute(a) => a.attr.range,
                other => other.range(),
            };
            let key = (name.start().to_u32(), name.end().to_u32());
            let id = match self.fs.helper_call_index.get(&key) {
                Some(&id) => id,
                None => {
                    let id = self.fs.helper_calls.len() as u32;
                    self.fs.helper_calls.push(HelperCall {
                        qualname: summary.qualname.clone(),
                        name,
                        broadcast_use: false,
                        other_use: false,
                    });
                    self.fs.helper_call_index.insert(key, id);
                    id
                }
            };
            fact.helper_calls = vec![id];
            self.record_use(&fact, ctx);
        }
        fact
    }

    /// The qualified name of the function a call names, when it is one this analysis can
    /// summarize (the same resolution as calls in `expr`).
    pub(super) fn callee_qualname(&self, func: &Expr) -> Option<String> {
        match func {
            Expr::Attribute(a) => {
                if let Some(path) = self.module_path(&a.value) {
                    return Some(format!("{path}.{}", a.attr.id));
                }
                match (&*a.value, &self.class_name) {
                    (Expr::Name(recv), Some(class))
                        if matches!(recv.id.as_str(), "self" | "cls") =>
                    {
                        Some(format!("{}.{class}.{}", self.fs.module.qualname, a.attr.id))
                    }
                    _ => None,
                }
            }
            Expr::Name(n) => {
                let id = n.id.as_str();
                if self.env.contains_key(id) {
                    return None;
                }
                self.fs.imports.get(id).cloned().or_else(|| {
                    self.fs
                        .module_functions
                        .contains(id)
                        .then(|| format!("{}.{id}", self.fs.module.qualname))
                })
            }
            _ => None,
        }
    }

    /// The enlarged elements of what a call returns (`x, y = helper(...)`), from the callee's
    /// element summaries; the call's arguments are not evaluated here.
    pub(super) fn call_elements(&mut self, call: &ast::ExprCall) -> Elements {
        if self.fs.summaries.elements.is_empty() {
            return Vec::new();
        }
        let Some(qualname) = self.callee_qualname(&call.func) else {
            return Vec::new();
        };
        let summaries: Vec<Arc<FunctionSummary>> = self.fs.summaries.elements(&qualname).to_vec();
        summaries
            .iter()
            .filter_map(|s| Some((s.element.clone()?, self.summary_fact(s, call))))
            .collect()
    }

    /// The fact of a summarized function's result (or element) at this call.
    pub(super) fn summary_fact(&mut self, summary: &FunctionSummary, call: &ast::ExprCall) -> Fact {
        let mut map: HashMap<&str, SymExpr> = HashMap::new();
        for (param, arg) in summary.params.iter().zip(call.arguments.args.iter()) {
            if matches!(arg, Expr::Starred(_)) {
                break;
            }
            map.insert(param.as_str(), sym_expr(arg, self.fs.text));
        }
        for kw in &call.arguments.keywords {
            if let Some(name) = &kw.arg {
                map.insert(name.id.as_str(), sym_expr(&kw.value, self.fs.text));
            }
        }
        let Some(mut enlarged) = summary.enlarged.clone() else {
            return Fact::tensor(summary.dtype, None).placed(summary.placement);
        };
        enlarged.copy_origin = None;
        enlarged.shape = enlarged
            .shape
            .map(|s| s.substitute(&|name| map.get(name).cloned()));
        // With this call's arguments the enlargement may be by 1 everywhere: nothing grows.
        if enlarged
            .shape
            .as_ref()
            .is_some_and(|s| s.0.iter().all(Dim::is_one))
        {
            return Fact::tensor(summary.dtype, enlarged.shape).placed(summary.placement);
        }
        enlarged.steps.push(Step {
            role: StepRole::Call,
            file: None,
            range: call.range(),
            code: self.fs.code(call.range()),
            receiver: None,
            stmt: self.stmt_range,
        });
        Fact {
            kind: ValueKind::Tensor,
            dtype: summary.dtype,
            shape: enlarged.shape.clone(),
            enlarged: Some(Rc::new(enlarged)),
            placement: summary.placement,
            ..Fact::default()
        }
    }
}

/// The fact of the argument a call passes for `param` (positional by the order of `params`, or
/// by keyword); None after a `*args` or when the call does not pass it.
fn bound_argument<'f>(
    params: &[String],
    param: &str,
    call: &ast::ExprCall,
    positional: &'f [Fact],
    keywords: &'f [Fact],
) -> Option<&'f Fact> {
    let at = params.iter().position(|p| p == param)?;
    let args = &call.arguments.args;
    if args
        .iter()
        .take(at + 1)
        .any(|a| matches!(a, Expr::Starred(_)))
    {
        return None;
    }
    if at < args.len() {
        return positional.get(at);
    }
    call.arguments
        .keywords
        .iter()
        .position(|kw| kw.arg.as_ref().is_some_and(|k| k.id.as_str() == param))
        .and_then(|i| keywords.get(i))
}

/// The parameter whose dtype every tensor the function returns has (see
/// [`FunctionSummary::dtype_param`]); a path returning `None` does not count.
fn returned_dtype_param(returns: &[Fact], params: &[String], body: &[ast::Stmt]) -> Option<String> {
    let mut tensors = returns
        .iter()
        .filter(|f| !f.is_not_tensor() || f.enlarged.is_some());
    let first = tensors.next()?;
    let sym = first.dtype_sym.as_deref()?;
    let same = |f: &Fact| {
        (f.kind == ValueKind::Tensor || f.enlarged.is_some())
            && f.dtype.is_none()
            && f.dtype_sym.as_deref() == Some(sym)
    };
    if !same(first) || !tensors.all(same) || !params.iter().any(|p| p == sym) {
        return None;
    }
    let rebound = body
        .iter()
        .any(|stmt| crate::analysis::chain::stored_names(stmt).contains(sym));
    (!rebound).then(|| sym.to_string())
}

/// What a parameter is known to be before the body runs: from its annotation, or a dtype or
/// device by its name.
pub(super) fn param_fact(param: &ast::Parameter) -> Fact {
    let name = param.name.id.as_str();
    let fact = match &param.annotation {
        Some(annotation) => annotation_fact(annotation),
        None => Fact::unknown(),
    };
    if fact.kind != ValueKind::Unknown {
        return fact;
    }
    if name == "dtype" || name.ends_with("_dtype") {
        Fact::of_kind(ValueKind::DTypeGuess)
    } else if name == "device" || name.ends_with("_device") {
        Fact::of_kind(ValueKind::DeviceValue)
    } else {
        fact
    }
}

/// The largest module-level function walked only for what it returns.
const LOCAL_HELPER_MAX_BYTES: usize = 4000;

/// What a helper returns, as seen by its callers: a tensor whose dtype or placement every
/// tensor return agrees on, or (`by_param`) whose dtype is a parameter's (a `return None` path
/// does not count).
fn local_return(returns: &[Fact], by_param: bool) -> Option<Fact> {
    let tensors: Vec<&Fact> = returns
        .iter()
        .filter(|f| (!f.is_not_tensor() && f.kind != ValueKind::Unknown) || f.enlarged.is_some())
        .collect();
    if tensors.is_empty()
        || returns
            .iter()
            .any(|f| f.kind == ValueKind::Unknown && f.enlarged.is_none())
    {
        return None;
    }
    let joined = tensors
        .iter()
        .skip(1)
        .fold((*tensors[0]).clone(), |acc, f| acc.join(f));
    let fact = Fact::tensor(joined.dtype, None).placed(joined.placement);
    (by_param || fact.dtype.is_some() || fact.placement != Placement::Unknown).then_some(fact)
}

/// Analyzes a function body in a fresh scope; records a summary when it returns an enlarged value.
pub(super) fn analyze_function(
    fs: &mut FileState<'_>,
    def: &ast::StmtFunctionDef,
    class_name: Option<String>,
    summarize: bool,
) {
    // A function that names no enlarger and calls no summarized helper (nor one of this file
    // returning a copy) cannot hold a site or return an enlarged value (its parameters start
    // unknown): skip its walk.
    let body_text = fs.text.get(def.range.to_std_range()).unwrap_or("");
    // A small module-level helper is walked anyway, for what it returns.
    let local = class_name.is_none() && summarize;
    let calls_summarized = !fs.summaries.is_empty() && fs.mentions_short_name_in(def.range);
    // Its return matters to callers later in this file (see `local_returns`) and, through its
    // summary, in other files.
    let small_helper = local
        && body_text.len() <= LOCAL_HELPER_MAX_BYTES
        && body_text.contains("return")
        && (fs.want_summaries
            || fs
                .text
                .get(def.range.end().to_usize()..)
                .is_some_and(|rest| rest.contains(&format!("{}(", def.name.id))));
    let calls_copy_helper = fs
        .returned_copies
        .keys()
        .any(|q| body_text.contains(q.rsplit('.').next().unwrap_or(q)));
    // A method that reads an attribute the class always stores enlarged (`self.mask`).
    let reads_class_attr = class_name.is_some()
        && fs
            .class_attrs
            .keys()
            .any(|attr| mentions_attribute(body_text, attr.strip_suffix("[*]").unwrap_or(attr)));
    // A method that calls one of the class whose result's placement is known
    // (`self.table(h, w)` returning a host cache's element).
    let calls_known_method = class_name.is_some()
        && fs.method_returns.keys().any(|q| {
            let name = q.rsplit('.').next().unwrap_or(q);
            body_text.contains(&format!("self.{name}("))
        });
    if fs.rewalk && !reads_class_attr && !calls_known_method {
        return;
    }
    // A method filling a cache on the object, in a class that enlarges something.
    let fills_cache = fs.class_enlarges
        && fs.attr_writes.is_some()
        && !fs.rewalk
        && super::stmt::stores_attr_element(body_text);
    if !(reads_class_attr
        || calls_known_method
        || fills_cache
        || fs.mentions_enlarger_in(def.range)
        || calls_summarized
        || small_helper
        || calls_copy_helper)
    {
        return;
    }
    let is_static = def
        .decorator_list
        .iter()
        .any(|d| matches!(&d.expression, Expr::Name(n) if n.id.as_str() == "staticmethod"));
    let qualname = match &class_name {
        Some(class) => format!("{}.{class}.{}", fs.module.qualname, def.name.id),
        None => format!("{}.{}", fs.module.qualname, def.name.id),
    };
    // Counts that every call of the project passes as 1.
    let unit_counts = fs.summaries.unit_counts.get(&qualname);
    if let Some(names) = unit_counts {
        fs.project_fixed
            .insert(def.range.start().to_u32(), names.clone());
    }
    let mut params = Vec::new();
    let mut env = Env::default();
    for (i, param) in def.parameters.iter_non_variadic_params().enumerate() {
        let name = param.parameter.name.id.to_string();
        let mut fact = param_fact(&param.parameter);
        if unit_counts.is_some_and(|names| names.contains(&name)) {
            fact.int_value = Some(1);
        }
        let is_receiver = i == 0 && class_name.is_some() && !is_static;
        if !is_receiver {
            params.push(name.clone());
        }
        env.insert(name, fact);
    }
    let takes_self = !is_static
        && def
            .parameters
            .iter_non_variadic_params()
            .next()
            .is_some_and(|p| p.parameter.name.id.as_str() == "self");
    if class_name.is_some() && takes_self {
        for (attr, fact) in &fs.class_shapes {
            env.insert(format!("self.{attr}"), fact.clone());
        }
        for (attr, dtype) in &fs.class_params {
            let fact = env.entry_or(format!("self.{attr}"), || Fact::tensor(None, None));
            fact.dtype = Some(*dtype);
        }
    }
    if reads_class_attr
        && !is_static
        && def
            .parameters
            .iter_non_variadic_params()
            .next()
            .is_some_and(|p| p.parameter.name.id.as_str() == "self")
    {
        for (attr, fact) in &fs.class_attrs {
            match env.get_mut(&format!("self.{attr}")) {
                // A host tensor whose sizes `__init__` spells: both are known.
                Some(known) if fact.enlarged.is_none() => {
                    known.placement = fact.placement;
                    if !fact.sink_results.is_empty() {
                        known.sink_results = fact.sink_results.clone();
                    }
                }
                _ => {
                    env.insert(format!("self.{attr}"), fact.clone());
                }
            }
        }
    }
    for param in [&def.parameters.vararg, &def.parameters.kwarg]
        .into_iter()
        .flatten()
    {
        env.insert(
            param.name.id.to_string(),
            Fact::of_kind(ValueKind::NotTensor),
        );
    }
    if fs
        .text
        .get(def.range.to_std_range())
        .is_some_and(|t| t.contains("topk"))
    {
        let names = super::topk::topk_names(&def.body);
        fs.topk_names.insert(def.range.start().to_u32(), names);
    }
    let broadcast_params;
    let (returns, elements) = {
        let mut walker = Walker::new(fs, class_name.clone(), true, def.range);
        walker.bound_here = env.keys().map(str::to_string).collect();
        walker.env = env;
        if summarize && class_name.is_none() && def.decorator_list.is_empty() {
            walker.param_reads = super::param_reads::tracked(def, body_text, &params);
        }
        walker.run_body(&def.body);
        broadcast_params = super::param_reads::broadcast_only(&walker.param_reads, &params);
        let mut returns = walker.returns.take().unwrap_or_default();
        let mut elements = std::mem::take(&mut walker.return_elements);
        if !walker.dead {
            // Falling off the end returns None.
            returns.push(Fact::of_kind(ValueKind::NotTensor));
            elements.push(Vec::new());
        }
        (returns, elements)
    };
    if summarize {
        let copies: Vec<SiteId> = returns
            .iter()
            .flat_map(|f| f.sink_results.iter().copied())
            .filter(|id| {
                fs.sites
                    .get(*id as usize)
                    .is_some_and(|site| site.sink == SinkKind::Materialize)
            })
            .collect();
        if !copies.is_empty() {
            fs.returned_copies.insert(qualname.clone(), copies);
        }
    }
    // A `repeat` this function returns and otherwise only broadcasts: its callers decide. Not for
    // a method (an override or a subclass may call it unseen), a nested function, nor a
    // decorated one (the decorator may register it, or hand callers something else).
    let mut returns_repeat = false;
    if summarize && class_name.is_none() && fs.want_summaries && def.decorator_list.is_empty() {
        let name = def.name.id.as_str();
        let public = !name.starts_with('_') || fs.module.is_package;
        for candidate in &mut fs.repeats {
            if candidate.scope_range == def.range
                && candidate.returned
                && !candidate.other_use
                && candidate.may_if.is_none()
            {
                candidate.helper = Some((qualname.clone(), public));
                returns_repeat = true;
            }
        }
    }
    let dtype_param = returned_dtype_param(&returns, &params, &def.body);
    let is_method = class_name.is_some();
    // Not enlarged: what callers need is its dtype and placement.
    let local_summary = local
        .then(|| local_return(&returns, dtype_param.is_some()))
        .flatten()
        .map(|fact| FunctionSummary {
            qualname: qualname.clone(),
            element: None,
            is_method,
            params: params.clone(),
            enlarged: None,
            dtype: fact.dtype,
            dtype_param: dtype_param.clone(),
            placement: fact.placement,
            returns_repeat: false,
            broadcast_params: broadcast_params.clone(),
        });
    if let Some(summary) = &local_summary {
        fs.local_returns
            .insert(def.name.id.to_string(), Arc::new(summary.clone()));
    }
    // A method whose every returned tensor lives in one known place: later methods' calls of
    // it (`self.table(h, w)`) get that placement.
    if is_method
        && takes_self
        && let Some(fact) = local_return(&returns, false)
        && fact.placement != Placement::Unknown
    {
        fs.method_returns.insert(
            qualname.clone(),
            Arc::new(FunctionSummary {
                placement: fact.placement,
                ..FunctionSummary::bare(&qualname, is_method, &params)
            }),
        );
    }
    if !(summarize && fs.want_summaries) {
        return;
    }
    let whole: Vec<Option<&Fact>> = returns.iter().map(Some).collect();
    if let Some(mut summary) = summarize_returns(fs, &whole, &qualname, None, is_method, &params) {
        summary.returns_repeat = returns_repeat;
        summary.dtype_param = dtype_param;
        summary.broadcast_params = broadcast_params;
        push_summary(fs, summary);
    } else if let Some(summary) = local_summary
        && (summary.dtype.is_some()
            || summary.dtype_param.is_some()
            || !summary.broadcast_params.is_empty())
    {
        // Across files, a dtype is what makes a cast a no-op, and a parameter only broadcast
        // lets a caller's repeat be an expand; a placement alone is not worth every caller's
        // file being scanned for the name again.
        push_summary(fs, summary);
    } else if !broadcast_params.is_empty() {
        push_summary(
            fs,
            FunctionSummary {
                broadcast_params,
                ..FunctionSummary::bare(&qualname, is_method, &params)
            },
        );
    }
    // Each element of a returned tuple, list or dict that is enlarged on some path.
    // A module's `forward` (or a dunder) is called as `module(x)`, which no call resolves to:
    // its element summaries would only make every file that says `forward` walked again.
    let name = def.name.id.as_str();
    if is_method && (name == "forward" || name.starts_with("__")) {
        return;
    }
    // Broadcast views only: a copy's other readers at the call site are not counted through a
    // container, and the copies returned so in real code are small (prompt embeddings).
    let mut keys: Vec<&ElementKey> = Vec::new();
    for (key, fact) in elements.iter().flatten() {
        if fact
            .enlarged
            .as_ref()
            .is_some_and(|e| e.kind == crate::analysis::EnlargeKind::View)
            && !keys.contains(&key)
        {
            keys.push(key);
        }
    }
    for key in keys {
        let facts: Vec<Option<&Fact>> = elements
            .iter()
            .map(|els| els.iter().find(|(k, _)| k == key).map(|(_, f)| f))
            .collect();
        if let Some(summary) =
            summarize_returns(fs, &facts, &qualname, Some(key.clone()), is_method, &params)
        {
            push_summary(fs, summary);
        }
    }
}

/// The summary of what a function returns on each path (None: a path where the element is not
/// there); a path that returns something not enlarged makes it "may".
fn summarize_returns(
    fs: &FileState<'_>,
    returns: &[Option<&Fact>],
    qualname: &str,
    element: Option<ElementKey>,
    is_method: bool,
    params: &[String],
) -> Option<FunctionSummary> {
    let enlarged_paths = || returns.iter().flatten().filter(|f| f.enlarged.is_some());
    let first = enlarged_paths().next()?;
    let mut enlarged = (**first.enlarged.as_ref()?).clone();
    enlarged.may |= returns
        .iter()
        .any(|f| f.is_none_or(|f| f.enlarged.is_none()));
    for step in &mut enlarged.steps {
        if step.file.is_none() {
            step.file = Some(fs.module.display_path.clone());
        }
    }
    // Where the value lives, when every return agrees.
    let placement = returns
        .iter()
        .flatten()
        .filter(|f| f.enlarged.is_some() || f.kind == ValueKind::Tensor)
        .map(|f| f.placement)
        .reduce(|a, b| if a == b { a } else { Placement::Unknown })
        .unwrap_or_default();
    Some(FunctionSummary {
        qualname: qualname.to_string(),
        element,
        is_method,
        params: params.to_vec(),
        enlarged: Some(enlarged),
        dtype: first.dtype,
        dtype_param: None,
        placement,
        returns_repeat: false,
        broadcast_params: Vec::new(),
    })
}

/// Records a summary; a second walk of the same function (a class's methods are walked again
/// once its enlarged attributes are known) replaces the first.
fn push_summary(fs: &mut FileState<'_>, summary: FunctionSummary) {
    match fs
        .summaries_out
        .iter_mut()
        .find(|s| s.qualname == summary.qualname && s.element == summary.element)
    {
        Some(known) => *known = summary,
        None => fs.summaries_out.push(summary),
    }
}

/// `self.<attr>` appears in `text` as a whole attribute name.
fn mentions_attribute(text: &str, attr: &str) -> bool {
    let needle = format!("self.{attr}");
    text.match_indices(&needle).any(|(i, _)| {
        !text[i + needle.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}
