//! The walker of one scope and its statements: assignments and destructuring, branches joined at
//! their merge, loops run to a fixpoint, and the marks a statement leaves on earlier sites
//! (result discarded, written in place, escaping).

use crate::source::ast::{self, Expr, Stmt};
use crate::source::{Ranged, TextRange};

use std::collections::{HashMap, HashSet};

use crate::analysis::ElementKey;
use crate::analysis::dtype_infer::annotation_fact;
use crate::analysis::facts::{
    Dim, EnlargeKind, Fact, Placement, Shape, SiteId, SymExpr, ValueKind,
};

use super::expr::{UseCtx, container_of};
use super::interproc::analyze_function;
use super::{Env, FileState, join_env};

mod bindings;
mod elements;
mod guards;
mod helper_calls;
mod host_caches;
mod known_sizes;
mod loop_state;
mod loops;

use elements::*;
pub(super) use elements::{dotted_key, element_key};
pub(super) use host_caches::{on_host, stores_attr_element};

/// The known elements of a container value, by position or key.
pub(super) type Elements = Vec<(ElementKey, Fact)>;

/// What a later use of a sink's result says about it (Combined: elementwise, Contracted: matmul).
#[derive(Clone, Copy)]
pub(super) enum ResultUse {
    Escapes,
    /// Returned by the function: it escapes too.
    Returned,
    NeedsContiguous,
    /// Only a dense tensor will do (a kernel launch, `torch.ops.*`, `assert x.is_contiguous()`).
    NeedsDense,
    /// Passed to code outside the project.
    LeavesProject,
    ConvWeight,
    Combined,
    Contracted,
}

/// One scope's walk.
pub(super) struct Walker<'s, 'a> {
    pub(super) fs: &'s mut FileState<'a>,
    /// Facts per name (`x`, `self.mask`) at the point being walked.
    pub(super) env: Env,
    /// The class whose method this is (`self.helper()` resolves to `Class.helper`).
    pub(super) class_name: Option<String>,
    /// Facts of `return` values, in a function.
    pub(super) returns: Option<Vec<Fact>>,
    /// For each `return` (in the order of `returns`): the elements of the tuple, list or dict it
    /// returns, when known.
    pub(super) return_elements: Vec<Elements>,
    /// The statement being walked (sites and chain steps name it).
    pub(super) stmt_range: TextRange,
    /// How the parent uses the expression about to be evaluated (taken by `eval_inner`).
    pub(super) use_ctx: UseCtx,
    /// The function (or module) being walked.
    pub(super) scope_range: TextRange,
    /// The receiver of the method call whose sink is being recorded (set by `eval_method`).
    pub(super) sink_receiver: Option<TextRange>,
    /// The last read of a repeated copy through a name (undone when the read only takes a view
    /// or metadata of it, which does not consume it).
    pub(super) last_copy_use: Option<(u32, TextRange)>,
    /// The point being walked cannot be reached (after `return`, `raise`, `break`, `continue`):
    /// its facts take no part in the joins.
    pub(super) dead: bool,
    /// For each enclosing loop: the facts at its `break`s and at its `continue`s.
    loops: Vec<LoopExits>,
    /// Some container element (`d["m"]`) has been bound in this scope.
    has_elements: bool,
    /// Some value has been placed with a named device expression in this scope.
    pub(super) placed_on_names: bool,
    /// Names this scope binds (its parameters, assigned names): a module constant of the same
    /// name is not what it reads.
    pub(super) bound_here: rustc_hash::FxHashSet<String>,
    /// How the function's parameters are read, when its summary wants it (`param_reads`).
    pub(super) param_reads: super::param_reads::Tracked,
}

#[derive(Default)]
struct LoopExits {
    breaks: Option<Env>,
    continues: Option<Env>,
}

/// Joins the facts of a path into `acc` (None: no live path yet).
fn join_into(acc: &mut Option<Env>, env: &Env) {
    *acc = Some(match acc.take() {
        Some(a) => join_env(&a, env),
        None => env.clone(),
    });
}

/// [`join_into`] of a path's facts no longer needed (the first one is kept, not copied).
fn join_owned(acc: &mut Option<Env>, env: Env) {
    *acc = Some(match acc.take() {
        Some(a) => join_env(&a, &env),
        None => env,
    });
}

impl<'s, 'a> Walker<'s, 'a> {
    pub(super) fn new(
        fs: &'s mut FileState<'a>,
        class_name: Option<String>,
        in_function: bool,
        scope_range: TextRange,
    ) -> Self {
        Walker {
            fs,
            env: Env::default(),
            class_name,
            returns: in_function.then(Vec::new),
            return_elements: Vec::new(),
            stmt_range: TextRange::default(),
            use_ctx: UseCtx::Other,
            scope_range,
            sink_receiver: None,
            last_copy_use: None,
            dead: false,
            loops: Vec::new(),
            has_elements: false,
            placed_on_names: false,
            bound_here: Default::default(),
            param_reads: None,
        }
    }

    /// Walks statements in order; those after a `return`, `raise`, `break` or `continue` are
    /// unreachable and are not walked.
    pub(super) fn run_body(&mut self, body: &[Stmt]) {
        for stmt in body {
            if self.dead {
                break;
            }
            self.stmt(stmt);
        }
    }

    /// The live facts at this point (None when it cannot be reached), taken out of the walker:
    /// for a path that ends here (the facts are replaced before anything reads them again).
    fn take_live(&mut self) -> Option<Env> {
        (!self.dead).then(|| std::mem::take(&mut self.env))
    }

    /// Continues from the join of the live paths in `merged`, or from `fallback` (marked
    /// unreachable) when none is live.
    fn resume(&mut self, merged: Option<Env>, fallback: Env) {
        match merged {
            Some(env) => {
                self.env = env;
                self.dead = false;
            }
            None => {
                self.env = fallback;
                self.dead = true;
            }
        }
    }

    fn stmt(&mut self, stmt: &Stmt) {
        stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || self.stmt_inner(stmt));
    }

    fn stmt_inner(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Assign(a) => {
                self.stmt_range = a.range;
                self.assign(&a.targets, &a.value);
            }
            Stmt::AnnAssign(a) => {
                self.stmt_range = a.range;
                let fact = match &a.value {
                    Some(value) => self.eval_with(value, UseCtx::Bind),
                    None => annotation_fact(&a.annotation),
                };
                self.bind(&a.target, fact);
            }
            Stmt::AugAssign(a) => {
                self.stmt_range = a.range;
                let target = match &*a.target {
                    Expr::Subscript(s) => match self.eval_element(s, UseCtx::Other) {
                        Some(element) => element,
                        None => {
                            // `x[i] += y` stores into x: x is written in place, whatever `i`.
                            let (base, indexed) = self.eval_subscript_of(s);
                            self.mark_in_place(&base);
                            indexed
                        }
                    },
                    _ => self.eval(&a.target),
                };
                // `x += y` writes x in place.
                self.mark_in_place(&target);
                let value = self.eval_with(&a.value, UseCtx::Broadcast);
                let fact = if target.kind == ValueKind::Scalar && value.kind != ValueKind::Scalar {
                    Fact::unknown()
                } else if target.kind == ValueKind::NotTensor {
                    // `feats += [x]`: the new elements may live anywhere.
                    Fact {
                        device_sym: None,
                        ..target
                    }
                } else {
                    target
                };
                if let Some(key) = dotted_key(&a.target) {
                    self.record_attr_write(&a.target, Fact::unknown());
                    self.set(key, fact);
                }
            }
            Stmt::Expr(e) => {
                self.stmt_range = e.range;
                if self.register_buffer(&e.value) {
                    return;
                }
                let before = self.fs.sites.len() as SiteId;
                let fact = self.eval(&e.value);
                // A conversion whose result is thrown away allocates nothing anyone keeps.
                for id in fact.sink_results {
                    if id >= before
                        && let Some(p) = self.fs.sites.get_mut(id as usize)
                    {
                        p.discarded = true;
                    }
                }
            }
            Stmt::Return(r) => {
                self.stmt_range = r.range;
                let (fact, elements) = match &r.value {
                    Some(v) => self.eval_with_elements(v, UseCtx::Return),
                    None => (Fact::of_kind(ValueKind::NotTensor), Vec::new()),
                };
                self.mark_use(&fact, ResultUse::Returned);
                // The tracked elements of a returned container (`out["m"] = y.clone(); return
                // out`) are returned too.
                for (_, element) in &elements {
                    self.mark_use(element, ResultUse::Returned);
                }
                if let Some(returns) = &mut self.returns {
                    returns.push(fact);
                    self.return_elements.push(elements);
                }
                self.dead = true;
            }
            Stmt::Delete(d) => {
                self.stmt_range = d.range;
                for target in &d.targets {
                    if let Some(key) = dotted_key(target) {
                        self.record_attr_write(target, Fact::unknown());
                        self.env.remove(&key);
                    } else if let Expr::Subscript(sub) = target
                        && let Some(key) = element_key(sub)
                    {
                        self.eval(&sub.value);
                        self.env.remove(&key);
                    } else {
                        self.eval(target);
                    }
                }
            }
            Stmt::If(s) => {
                self.stmt_range = s.test.range();
                self.eval(&s.test);
                let entry = self.env.clone();
                // Each branch runs knowing what its test proves (`if m.dtype == torch.bool:`)
                // and what the earlier tests, all false there, prove.
                let (when_true, mut earlier_false) = self.dtype_guard_facts(&s.test);
                self.assume_dtypes(&when_true);
                self.assume_number(&s.test);
                self.run_body(&s.body);
                // Only the branches that reach the end of the `if` take part in the join.
                let mut merged = self.take_live();
                let mut bypasses = self.copy_bypasses(merged.as_ref(), &s.body);
                let mut has_else = false;
                for clause in &s.elif_else_clauses {
                    self.env = entry.clone();
                    self.dead = false;
                    self.assume_dtypes(&earlier_false);
                    if let Some(test) = &clause.test {
                        self.stmt_range = test.range();
                        self.eval(test);
                        let (when_true, when_false) = self.dtype_guard_facts(test);
                        self.assume_dtypes(&when_true);
                        self.assume_number(test);
                        earlier_false.extend(when_false);
                    } else {
                        has_else = true;
                    }
                    self.run_body(&clause.body);
                    if let Some(env) = self.take_live() {
                        bypasses.extend(self.copy_bypasses(Some(&env), &clause.body));
                        join_owned(&mut merged, env);
                    }
                }
                let fallback = if has_else {
                    entry
                } else {
                    // The path where every test is false (after `if m.dtype != torch.bool:
                    // return`, the only one that goes on): live, so `entry` is no fallback.
                    self.env = entry;
                    self.assume_dtypes(&earlier_false);
                    join_owned(&mut merged, std::mem::take(&mut self.env));
                    Env::default()
                };
                self.resume(merged, fallback);
                self.apply_copy_bypasses(bypasses);
                let branches: Vec<&[Stmt]> = std::iter::once(s.body.as_slice())
                    .chain(s.elif_else_clauses.iter().map(|c| c.body.as_slice()))
                    .collect();
                self.exclusive_branches(&branches);
            }
            Stmt::For(f) => {
                self.stmt_range = f.iter.range();
                self.eval(&f.iter);
                let target = &f.target;
                self.mark_loop_state(&f.body);
                let each = self.loop_target_fact(&f.iter);
                self.run_loop(&f.body, &f.orelse, |w| w.bind(target, each.clone()));
            }
            Stmt::While(w) => {
                self.stmt_range = w.test.range();
                self.eval(&w.test);
                let test = &w.test;
                self.mark_loop_state(&w.body);
                self.run_loop(&w.body, &w.orelse, |walker| {
                    walker.eval(test);
                });
            }
            Stmt::With(w) => {
                for item in &w.items {
                    self.stmt_range = item.range;
                    self.eval(&item.context_expr);
                    if let Some(vars) = &item.optional_vars {
                        self.bind(vars, Fact::unknown());
                    }
                }
                self.run_body(&w.body);
            }
            Stmt::Try(t) => {
                let entry = self.env.clone();
                self.run_body(&t.body);
                // A handler may start anywhere in the body.
                let handler_entry = if self.dead {
                    entry.clone()
                } else {
                    join_env(&entry, &self.env)
                };
                self.run_body(&t.orelse);
                let mut merged = self.take_live();
                for handler in &t.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = handler;
                    self.env = handler_entry.clone();
                    self.dead = false;
                    if let Some(ty) = &h.type_ {
                        self.stmt_range = ty.range();
                        self.eval(ty);
                    }
                    if let Some(name) = &h.name {
                        self.env
                            .insert(name.id.to_string(), Fact::of_kind(ValueKind::NotTensor));
                    }
                    self.run_body(&h.body);
                    if let Some(env) = self.take_live() {
                        join_owned(&mut merged, env);
                    }
                }
                // `finally` runs on every path, also those that leave.
                let leaves = merged.is_none();
                self.resume(merged.or(Some(handler_entry)), entry);
                self.run_body(&t.finalbody);
                self.dead |= leaves;
            }
            Stmt::Match(m) => {
                self.stmt_range = m.subject.range();
                self.eval(&m.subject);
                let entry = self.env.clone();
                let mut merged = Some(entry.clone());
                for case in &m.cases {
                    self.env = entry.clone();
                    self.dead = false;
                    if let Some(guard) = &case.guard {
                        self.eval(guard);
                    }
                    self.run_body(&case.body);
                    if let Some(env) = self.take_live() {
                        join_owned(&mut merged, env);
                    }
                }
                self.resume(merged, entry);
            }
            Stmt::FunctionDef(def) => {
                self.helper_results_captured(def.range);
                for decorator in &def.decorator_list {
                    self.stmt_range = decorator.range;
                    self.eval(&decorator.expression);
                }
                for param in def.parameters.iter_non_variadic_params() {
                    if let Some(default) = &param.default {
                        self.eval(default);
                    }
                }
                let summarize = self.returns.is_none();
                let class_name = self.class_name.clone();
                analyze_function(self.fs, def, class_name, summarize);
                let name = def.name.id.to_string();
                if summarize && self.class_name.is_none() {
                    // A module-level function: calls of it below resolve to its summary
                    // (`attn = build(mask, n)` at the top of a script), as in a function body.
                    self.env.remove(&name);
                } else {
                    self.env.insert(name, Fact::of_kind(ValueKind::NotTensor));
                }
            }
            Stmt::ClassDef(class) => {
                self.helper_results_captured(class.range);
                for decorator in &class.decorator_list {
                    self.eval(&decorator.expression);
                }
                if let Some(arguments) = &class.arguments {
                    for arg in &arguments.args {
                        self.eval(arg);
                    }
                }
                // Methods are summarized only for classes at module level.
                let name = (self.returns.is_none() && self.class_name.is_none())
                    .then(|| class.name.id.to_string());
                let scope = self.scope_range;
                let collect = name.is_some();
                let mut enlarges = false;
                if collect {
                    self.fs.attr_writes = Some(HashMap::new());
                    let mut counts = None;
                    let (shapes, params) =
                        known_sizes::parameter_shapes(class, self.fs.text, &mut counts);
                    self.fs.class_shapes = shapes;
                    // Parameter dtypes matter only to a class that enlarges something.
                    enlarges = self.fs.mentions_enlarger_in(class.range);
                    self.fs.class_enlarges = enlarges;
                    if !params.is_empty() && enlarges {
                        self.fs.class_params = params;
                    }
                    // A module called on an enlarged value matters only to a class that
                    // enlarges something (the class text is read once per module otherwise).
                    (self.fs.class_modules, self.fs.class_unit_pools) = if enlarges {
                        known_sizes::init_modules(
                            class,
                            self.fs.text,
                            &self.fs.imports,
                            &mut counts,
                        )
                    } else {
                        (HashMap::new(), HashMap::new())
                    };
                    self.fs.class_constants =
                        super::constants::class_constants(class, self.fs.text);
                    if enlarges {
                        self.fs.class_numbers =
                            super::constants::class_number_attributes(class, self.fs.text)
                                .into_iter()
                                .collect();
                    }
                }
                let mut walker = Walker::new(self.fs, name.clone(), false, scope);
                walker.run_body(&class.body);
                if collect {
                    let writes = self.fs.attr_writes.take().unwrap_or_default();
                    let element_writes = std::mem::take(&mut self.fs.attr_element_writes);
                    let buffers = std::mem::take(&mut self.fs.buffer_attrs);
                    let host_writes = std::mem::take(&mut self.fs.attr_host_writes);
                    // Host tensors kept on the class matter only to a class that enlarges
                    // something (a move of an enlarged view of one).
                    let mut host = if enlarges {
                        host_caches::host_caches(&host_caches::ClassStores {
                            class_text: self.fs.text.get(class.range.to_std_range()).unwrap_or(""),
                            writes: &writes,
                            host_writes: &host_writes,
                            element_writes: &element_writes,
                            buffers: &buffers,
                        })
                    } else {
                        HashMap::new()
                    };
                    let mut attrs = enlarged_attributes(writes);
                    for (attr, fact) in host.drain() {
                        attrs.entry(attr).or_insert(fact);
                    }
                    if !attrs.is_empty() {
                        // Again, each method now starting from the attributes every method
                        // stores enlarged (`self.mask` set in `__init__`, cast in `forward`).
                        self.fs.class_attrs = attrs;
                        self.fs.rewalk = true;
                        let mut walker = Walker::new(self.fs, name, false, scope);
                        walker.run_body(&class.body);
                        self.fs.rewalk = false;
                        self.fs.class_attrs.clear();
                    }
                    self.fs.method_returns.clear();
                    self.fs.class_enlarges = false;
                    self.fs.class_shapes.clear();
                    self.fs.class_params.clear();
                    self.fs.class_modules.clear();
                    self.fs.class_unit_pools.clear();
                    self.fs.class_constants.clear();
                    self.fs.class_numbers.clear();
                }
                self.env.insert(
                    class.name.id.to_string(),
                    Fact::of_kind(ValueKind::NotTensor),
                );
            }
            Stmt::Import(_) | Stmt::ImportFrom(_) => {
                self.fs.record_import(stmt);
                let names: Vec<String> = match stmt {
                    Stmt::Import(i) => i
                        .names
                        .iter()
                        .map(|a| a.asname.as_ref().unwrap_or(&a.name).id.to_string())
                        .collect(),
                    Stmt::ImportFrom(i) => i
                        .names
                        .iter()
                        .map(|a| a.asname.as_ref().unwrap_or(&a.name).id.to_string())
                        .collect(),
                    _ => Vec::new(),
                };
                for name in names {
                    self.env.remove(&name);
                }
            }
            Stmt::Raise(r) => {
                self.stmt_range = r.range;
                if let Some(exc) = &r.exc {
                    self.eval(exc);
                }
                if let Some(cause) = &r.cause {
                    self.eval(cause);
                }
                self.dead = true;
            }
            Stmt::Assert(a) => {
                self.stmt_range = a.range;
                self.eval(&a.test);
                if let Some(msg) = &a.msg {
                    self.eval(msg);
                }
                // `assert x.is_contiguous()`: the code relies on `x` being dense.
                for key in super::consumers::asserted_contiguous(&a.test) {
                    if let Some(fact) = self.env.get(&key).cloned() {
                        self.mark_use(&fact, ResultUse::NeedsDense);
                    }
                }
                // Past the assert, its test holds (`assert m.dtype == torch.bool`,
                // `assert x.shape[0] == 1`).
                let (when_true, _) = self.dtype_guard_facts(&a.test);
                self.assume_dtypes(&when_true);
                self.assume_unit_dim(&a.test);
                self.assume_same_shape(&a.test);
            }
            Stmt::TypeAlias(_)
            | Stmt::Global(_)
            | Stmt::Nonlocal(_)
            | Stmt::Pass(_)
            | Stmt::IpyEscapeCommand(_) => {}
            Stmt::Break(_) | Stmt::Continue(_) => {
                if let Some(exits) = self.loops.last_mut() {
                    let slot = if matches!(stmt, Stmt::Break(_)) {
                        &mut exits.breaks
                    } else {
                        &mut exits.continues
                    };
                    join_into(slot, &self.env);
                    self.dead = true;
                }
            }
        }
    }

    fn assign(&mut self, targets: &[Expr], value: &Expr) {
        if let [target] = targets {
            self.destructure(target, value);
            return;
        }
        let fact = self.eval_with(value, UseCtx::Bind);
        for target in targets {
            self.bind(target, fact.clone());
        }
    }

    /// Binds `key`, forgetting what was known about its attributes and elements (`x.mask`,
    /// `x["mask"]` after `x = ...`).
    fn set(&mut self, key: String, fact: Fact) {
        self.forget_device_name(&key);
        let n = key.len();
        self.env.retain(|k| {
            !(k.len() > n && k.starts_with(&key) && matches!(k.as_bytes()[n], b'.' | b'['))
        });
        // An unknown value is the same as no entry: keeping the environment small keeps the
        // joins at branches and loops cheap.
        if fact == Fact::default() {
            self.env.remove(&key);
        } else {
            self.env.insert(key, fact);
        }
    }

    pub(super) fn mark_use(&mut self, fact: &Fact, result_use: ResultUse) {
        // A repeat stored where other code reads it (an attribute, a container), or read as
        // dense memory or as a kernel: `expand` would not do (OOM121).
        // (A return is the callers' to judge: `UseCtx::Return` records it.)
        if !matches!(
            result_use,
            ResultUse::Combined | ResultUse::Contracted | ResultUse::Returned
        ) && let Some(c) = fact.repeat_candidate
            && let Some(candidate) = self.fs.repeats.get_mut(c as usize)
        {
            candidate.other_use = true;
        }
        for id in &fact.sink_results {
            if let Some(p) = self.fs.sites.get_mut(*id as usize) {
                match result_use {
                    ResultUse::Escapes => p.result_escapes = true,
                    ResultUse::Returned => {
                        p.result_escapes = true;
                        p.result_returned = true;
                    }
                    ResultUse::NeedsContiguous => p.result_needs_contiguous = true,
                    ResultUse::NeedsDense => {
                        p.result_needs_contiguous = true;
                        p.result_needs_dense = true;
                    }
                    ResultUse::LeavesProject => p.result_leaves_project = true,
                    ResultUse::ConvWeight => p.result_is_conv_weight = true,
                    ResultUse::Combined => p.result_combined = true,
                    ResultUse::Contracted => p.result_contracted = true,
                }
            }
        }
    }

    pub(super) fn mark_in_place(&mut self, fact: &Fact) {
        if fact.kind == ValueKind::NotTensor {
            // A container that holds sink results (`out += [y]`) is not the results themselves.
            return;
        }
        for id in &fact.sink_results {
            if let Some(p) = self.fs.sites.get_mut(*id as usize) {
                p.written_in_place = true;
            }
        }
        if let Some(c) = fact.repeat_candidate
            && let Some(candidate) = self.fs.repeats.get_mut(c as usize)
        {
            // An expand view cannot be written in place: the copy is needed.
            candidate.other_use = true;
        }
        self.helper_calls_escape(fact);
    }
}
