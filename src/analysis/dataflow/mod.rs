//! The flow-sensitive walk over one file: one pass per scope (module, class body, function,
//! lambda), facts per name joined at control-flow merges, loops run to a fixpoint.
//!
//! This file holds what every scope of a file shares ([`FileState`]: imports, module-level names,
//! the sites and repeat candidates found so far) and the entry point. The walk is split by idea:
//! statements ([`stmt`]), expressions ([`expr`]), tensor methods ([`tensor_methods`]), `torch.*`
//! functions ([`torch_functions`]), enlargers and views ([`enlarge`]), and calls across functions
//! ([`interproc`]). What can be told from the syntax alone lives in `shape_infer`/`dtype_infer`.

mod attention_mask;
mod broadcast_reads;
mod calls;
mod constants;
mod consumers;
mod devices;
mod enlarge;
mod env;
mod expr;
mod in_place_writes;
mod interproc;
mod may_unit;
mod param_reads;
mod split_views;
mod stmt;
mod table_sinks;
mod tensor_methods;
mod topk;
mod torch_functions;
mod unit_results;

use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::sync::Arc;

use crate::source::TextRange;
use crate::source::ast::{self, Expr, Stmt};

use super::census::{Enlargement, SkipReason, SkippedConversion};
use super::dtype_infer::is_number_literal;
use super::facts::{DType, Enlarged, Fact, Shape, SiteId, Step, StepRole, ValueKind};
use super::shape_infer::collapse_code;
use super::{
    CallerReads, FileAnalysis, FunctionSummary, ModuleInfo, PassedCall, RepeatReaders,
    ReturnedRepeat, SinkKind, Site, SummaryTable,
};
use env::{Env, join_env};
use stmt::Walker;

/// The one dim a `repeat_interleave` grows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum InterleavedDim {
    /// `repeat_interleave(n, dim=d)`: dim `d` alone (negative: from the end).
    Dim(i64),
    /// `repeat_interleave(n)` with no dim: torch flattens the input, so the result is 1-D and
    /// its one dim is the grown one.
    Flat,
}

/// A `repeat` whose source dims are known to be 1 where it repeats: `expand` would do if nothing
/// but broadcasting consumers reads it (OOM121). Its uses are recorded as the walk meets them.
struct RepeatCandidate {
    enlarged: Enlarged,
    range: TextRange,
    receiver: TextRange,
    scope_range: TextRange,
    code: String,
    stmt_range: TextRange,
    expand_args: String,
    /// The condition under which it could be an `expand`, when the repeated dims are of unknown
    /// size (`dim 0 of `x` is 1`).
    may_if: Option<String>,
    /// A binary op combined it with a tensor of the full shape ([`Walker::note_full_operand`]):
    /// what a "may" candidate needs.
    full_operand: bool,
    /// A binary op read it with an operand that may be a plain number (its kind is not known:
    /// `r // self.beam_size`): the op's result is as large as the copy, so `expand` alone saves
    /// only the copy; the op itself belongs before the enlargement.
    number_operand: Option<crate::analysis::NumberOperand>,
    dtype: Option<DType>,
    shape: Option<Shape>,
    /// Read by a broadcasting consumer: a pointwise op or a join (`pointwise_use` /
    /// `concat_use` say which).
    broadcast_use: bool,
    pointwise_use: bool,
    concat_use: bool,
    /// Read as the tensor index of a tensor (`preds[mask] = v`).
    index_use: bool,
    /// Joined with nothing but other copies and views (see [`Walker::note_join_of_copies`]).
    table_join: bool,
    /// The first elementwise map it was read through (`float` in `z.float()`), whose result's
    /// reads count as its own ([`super::dataflow::broadcast_reads::maps_elementwise`]).
    read_through: Option<String>,
    other_use: bool,
    /// Returned by the function it is in (not counted as another use).
    returned: bool,
    /// Set after the walk of a module-level function that returns the candidate and reads it
    /// only by broadcasting otherwise: the function's qualified name, and whether it is public.
    helper: Option<(String, bool)>,
    /// The constants its shape names (see [`Site::constants`]).
    constants: Vec<crate::analysis::NamedConstant>,
}

/// A call of a helper of the project that returns a `repeat` (`FunctionSummary::returns_repeat`):
/// how its result is read here.
struct HelperCall {
    qualname: String,
    /// The function's name at the call (`build` in `build(x)` or `masks.build(x)`).
    name: TextRange,
    broadcast_use: bool,
    other_use: bool,
}

/// State shared by every scope of one file.
struct FileState<'a> {
    text: &'a str,
    module: &'a ModuleInfo,
    summaries: &'a SummaryTable,
    /// Local name -> dotted path, from import statements. (These name maps are only looked up,
    /// never iterated, and read for most names the walk meets: a fast hasher.)
    imports: rustc_hash::FxHashMap<String, String>,
    module_functions: rustc_hash::FxHashSet<String>,
    module_classes: rustc_hash::FxHashSet<String>,
    /// Module-level constants that are plain numbers.
    globals: rustc_hash::FxHashMap<String, Fact>,
    /// Module-level names bound once to a positive integer literal (`NUM_HEADS = 4`).
    constants: HashMap<String, constants::ConstDecl>,
    /// While a module-level class is walked: its constants (class body, `__init__` literals).
    class_constants: HashMap<String, constants::ConstDecl>,
    /// While a module-level class that enlarges something is walked: its attributes that hold a
    /// Python number ([`constants::class_number_attributes`]).
    class_numbers: rustc_hash::FxHashSet<String>,
    /// Module-level constants equal to the integer 1 (`repeat(N_REP)` with `N_REP = 1` copies
    /// nothing larger).
    global_ones: rustc_hash::FxHashSet<String>,
    /// Sites found so far; later statements still add facts about their results.
    sites: Vec<Site>,
    /// Sites by sink range and where the enlargement was made: a helper's sink reached by two
    /// calls passing different enlargements (a repeated copy, then an expanded view) is two
    /// sites, each judged on its own (a loop's later passes find the same one again).
    site_index: HashMap<(u32, u32, u32), SiteId>,
    repeats: Vec<RepeatCandidate>,
    repeat_index: HashMap<(u32, u32), u32>,
    /// Calls of helpers that return a `repeat`, one per call (a loop revisits it).
    helper_calls: Vec<HelperCall>,
    helper_call_index: HashMap<(u32, u32), u32>,
    /// Module-level functions: the range of the name in their `def`.
    def_names: HashMap<String, TextRange>,
    /// Names imported by `from m import name` (the dotted path, where the name is written).
    imported_names: Vec<(String, TextRange)>,
    /// Modules imported whole by `from m import *`.
    star_imports: Vec<String>,
    /// For each repeated copy bound to a name: the places that read it (a set: loops revisit).
    copy_uses: Vec<Vec<TextRange>>,
    copy_index: HashMap<(u32, u32), u32>,
    summaries_out: Vec<FunctionSummary>,
    want_summaries: bool,
    /// Functions of this file (by qualified name) that return a materialized broadcast view: the
    /// sites, so that a caller's in-place write of the result reaches them.
    returned_copies: HashMap<String, Vec<SiteId>>,
    /// What this file's module-level functions walked so far return, when it is a tensor whose
    /// dtype or placement is known (`def key_padding_mask(x, pad): return x.eq(pad)`).
    local_returns: HashMap<String, Arc<FunctionSummary>>,
    /// The shape of each enlarger's input, when known, by the enlarging step's range: which dims
    /// grew (for an operand that lacks them).
    enlarge_sources: HashMap<(u32, u32), Shape>,
    /// For a `repeat_interleave` with its dim written as a number, or with none, by the
    /// enlarging step's range: the dim it grows, for a source of unknown rank.
    interleave_dims: HashMap<(u32, u32), InterleavedDim>,
    /// For an enlarger that takes its size from another tensor (`expand_as(e)`, `expand(e.shape)`,
    /// `broadcast_to(e.size())`), by the enlarging step's range: that tensor's key (`e`). It has
    /// the full enlarged shape by construction.
    expand_targets: HashMap<(u32, u32), String>,
    /// Pairs of keys an `assert a.shape == b.shape` proved to have one shape (both orders), for
    /// the rest of the function: `b` is as full-size as an expansion to `a.shape`.
    same_shapes: HashSet<(String, String)>,
    /// Every enlarger call walked, by its step's range (a loop or a second walk revisits it).
    enlargements: Vec<Enlargement>,
    enlargement_index: HashSet<(u32, u32)>,
    /// No-op conversions of enlarged values (see [`SkippedConversion`]).
    skipped: Vec<SkippedConversion>,
    /// Sites of an op between the enlarged value and a tensor whose dtype may differ (type
    /// promotion): their results need not have the enlarged value's dtype.
    promoted_results: HashSet<SiteId>,
    /// For each function that mentions `topk` (by where its `def` starts): the names holding a
    /// top-k selection (`topk::topk_names`).
    topk_names: HashMap<u32, rustc_hash::FxHashSet<String>>,
    /// For each read of a repeated copy (by range): the sinks of that copy whose paths never
    /// read it there, on every visit (see [`Fact::copy_bypass`]).
    copy_read_bypass: HashMap<(u32, u32), Vec<SiteId>>,
    /// While a callee of this file is walked for a call: that call in the outermost caller.
    outer_call: Option<TextRange>,
    /// Reads of a repeated copy made inside a callee: the outermost calls they were made for.
    /// Which branch of an `if` reads the copy is that of the call (`elu_p1(q)` in an `elif`).
    callee_reads: HashMap<(u32, u32), Vec<TextRange>>,
    /// While the methods of a module-level class are walked: every value stored on `self.<attr>`
    /// in any of them (anything else written there, such as a class attribute, counts as unknown).
    attr_writes: Option<HashMap<String, Vec<Fact>>>,
    /// The attributes of the class being walked again that every method sees enlarged: each
    /// store in the class puts an enlarged value there.
    /// Tensors the class's `__init__` makes with their sizes written out (`self.probe =
    /// nn.Parameter(torch.randn(1, 1, d))`), assigned nowhere else: each method starts from them.
    class_shapes: HashMap<String, Fact>,
    /// The class's `nn.Parameter` attributes that `__init__` assigns once and nothing else
    /// assigns, with the dtype their initializer is made with: a parameter's dtype is its
    /// initializer's (`nn.Parameter(torch.randn(h, d))` is float32).
    class_params: HashMap<String, DType>,
    /// The `torch.nn` modules the class's `__init__` builds once (`self.proj = nn.Linear(d, e)`):
    /// attribute -> class name, so that `self.proj(x)` acts as its functional form.
    class_modules: HashMap<String, String>,
    /// The class's adaptive poolings to an output size of 1 (`self.pool =
    /// nn.AdaptiveMaxPool3d(1)`): the dims their result has of size 1, from the right.
    class_unit_pools: HashMap<String, Vec<i64>>,
    class_attrs: HashMap<String, Fact>,
    /// While a module-level class is walked: every value stored into an element of
    /// `self.<attr>` (`self._tables[key] = v`; a call that may add elements unseen counts as
    /// unknown), for the caches whose every element lives on the host.
    attr_element_writes: HashMap<String, Vec<Fact>>,
    /// The attributes the class registers as buffers: `module.to(device)` moves those.
    buffer_attrs: HashSet<String>,
    /// Where the class's walked methods store host tensors on `self.<attr>`.
    attr_host_writes: HashMap<String, HashSet<u32>>,
    /// The module-level class being walked names an enlarger.
    class_enlarges: bool,
    /// What the methods of the class being walked return, when every tensor they return lives
    /// in one known place (`return self._tables[key]` of a host cache), by qualified name.
    method_returns: HashMap<String, Arc<FunctionSummary>>,
    /// The class's methods are walked a second time, for the reads of `class_attrs` only.
    rewalk: bool,
    /// This file's functions and methods by qualified name (`mod.f`, `mod.Class.m`).
    defs: HashMap<String, &'a ast::StmtFunctionDef>,
    /// Each class of this file: the names of its bases.
    class_bases: HashMap<String, Vec<String>>,
    /// `Class.attr` -> the class `__init__` builds there (`self.attr = Block(...)`).
    submodules: HashMap<String, String>,
    /// Calls followed into a callee (see `calls`): by callee and which arguments were enlarged,
    /// what it returned.
    passed: HashMap<(String, String), Fact>,
    /// The callees being walked for a call, innermost last.
    pass_stack: Vec<String>,
    /// Calls that pass enlarged values into other files' functions.
    passed_out: Vec<PassedCall>,
    /// Names and `self` attributes bound once to a `functools.partial(...)` call (see
    /// `calls::partial`).
    partials: HashMap<String, &'a ast::ExprCall>,
    /// Where the text names an enlarger, and a function whose summary says it returns an
    /// enlarged value (each found on first use).
    enlarger_mentions: std::cell::OnceCell<crate::analysis::Mentions>,
    short_name_mentions: std::cell::OnceCell<crate::analysis::Mentions>,
    /// This file's functions that write a parameter or a `self` attribute in place, by
    /// qualified name (see `in_place_writes`).
    in_place: HashMap<String, Arc<crate::analysis::InPlaceWrites>>,
    /// The parameters every call of the project passes as 1, by where their function starts.
    project_fixed: HashMap<u32, Vec<String>>,
}

/// Analyzes one parsed module. `summaries` are those of the whole linted tree (may be empty);
/// with `want_summaries` the result also lists this file's functions that return enlarged values.
pub fn analyze_module<'a>(
    body: &'a [Stmt],
    text: &'a str,
    module: &'a ModuleInfo,
    summaries: &'a SummaryTable,
    want_summaries: bool,
) -> FileAnalysis {
    let mut fs = FileState {
        text,
        module,
        summaries,
        imports: Default::default(),
        module_functions: Default::default(),
        module_classes: Default::default(),
        globals: Default::default(),
        global_ones: Default::default(),
        constants: HashMap::new(),
        class_constants: HashMap::new(),
        class_numbers: Default::default(),
        sites: Vec::new(),
        site_index: HashMap::new(),
        repeats: Vec::new(),
        repeat_index: HashMap::new(),
        helper_calls: Vec::new(),
        helper_call_index: HashMap::new(),
        def_names: HashMap::new(),
        imported_names: Vec::new(),
        star_imports: Vec::new(),
        copy_uses: Vec::new(),
        copy_index: HashMap::new(),
        summaries_out: Vec::new(),
        want_summaries,
        returned_copies: HashMap::new(),
        local_returns: HashMap::new(),
        enlarge_sources: HashMap::new(),
        interleave_dims: HashMap::new(),
        expand_targets: HashMap::new(),
        same_shapes: HashSet::new(),
        enlargements: Vec::new(),
        enlargement_index: HashSet::new(),
        skipped: Vec::new(),
        promoted_results: HashSet::new(),
        topk_names: HashMap::new(),
        copy_read_bypass: HashMap::new(),
        outer_call: None,
        callee_reads: HashMap::new(),
        attr_writes: None,
        class_attrs: HashMap::new(),
        attr_element_writes: HashMap::new(),
        buffer_attrs: HashSet::new(),
        attr_host_writes: HashMap::new(),
        class_enlarges: false,
        method_returns: HashMap::new(),
        class_shapes: HashMap::new(),
        class_params: HashMap::new(),
        class_modules: HashMap::new(),
        class_unit_pools: HashMap::new(),
        rewalk: false,
        defs: HashMap::new(),
        class_bases: HashMap::new(),
        submodules: HashMap::new(),
        passed: HashMap::new(),
        pass_stack: Vec::new(),
        passed_out: Vec::new(),
        partials: HashMap::new(),
        enlarger_mentions: std::cell::OnceCell::new(),
        short_name_mentions: std::cell::OnceCell::new(),
        in_place: HashMap::new(),
        project_fixed: HashMap::new(),
    };
    let mut counts = HashMap::new();
    let mut candidates = Vec::new();
    fs.prepass(body, &mut counts, &mut candidates);
    fs.constants = constants::keep_module_constants(candidates, &counts, &fs.imports, text);
    fs.record_defs(body);
    fs.record_partials(body);
    fs.in_place = fs
        .in_place_writes(body)
        .into_iter()
        .map(|w| (w.qualname.clone(), Arc::new(w)))
        .collect();
    {
        let whole = TextRange::up_to(crate::source::TextSize::of(text));
        let mut walker = Walker::new(&mut fs, None, false, whole);
        walker.run_body(body);
    }
    fs.rewalk_earlier_callers(body);
    fs.walk_passed_in();
    fs.finish()
}

impl<'a> FileState<'a> {
    /// `mentions_enlarger` of the code at `range`, from one search of the whole file.
    fn mentions_enlarger_in(&self, range: TextRange) -> bool {
        self.enlarger_mentions
            .get_or_init(|| crate::analysis::enlarger_mentions(self.text))
            .within(self.text, range.to_std_range())
    }

    /// Does the code at `range` name one of `SummaryTable::short_names`?
    fn mentions_short_name_in(&self, range: TextRange) -> bool {
        self.short_name_mentions
            .get_or_init(|| crate::analysis::Mentions::new(self.text, self.summaries.short_names()))
            .within(self.text, range.to_std_range())
    }

    /// A module-level function defined above a function of this file that returns a copy, and
    /// calling it: walked again now that the copy is known, so that what it does with the copy
    /// (an in-place write: the copy is needed) reaches the copy's site whatever the order of the
    /// two in the file. Nothing is summarized again, and no call is passed on twice.
    fn rewalk_earlier_callers(&mut self, body: &'a [Stmt]) {
        if self.returned_copies.is_empty() {
            return;
        }
        let callees: Vec<(u32, String)> = self
            .returned_copies
            .keys()
            .filter_map(|q| {
                let def = self.defs.get(q)?;
                let short = q.rsplit('.').next()?;
                Some((def.range.start().to_u32(), format!("{short}(")))
            })
            .collect();
        let passed = self.passed_out.len();
        for stmt in body {
            let Stmt::FunctionDef(def) = stmt else {
                continue;
            };
            let text = self.text.get(def.range.to_std_range()).unwrap_or("");
            let calls_a_later_copy = callees
                .iter()
                .any(|(at, call)| def.range.start().to_u32() < *at && text.contains(call.as_str()));
            if calls_a_later_copy {
                interproc::analyze_function(self, def, None, false);
            }
        }
        self.passed_out.truncate(passed);
    }

    /// Module-level names: imports, functions, classes and numeric constants, so that a function
    /// body sees them whatever their order in the file.
    fn prepass(
        &mut self,
        body: &[Stmt],
        counts: &mut HashMap<String, u32>,
        candidates: &mut Vec<(String, constants::ConstDecl)>,
    ) {
        for stmt in body {
            constants::count_bindings(stmt, counts);
            candidates.extend(constants::module_constant(stmt, self.text));
            match stmt {
                Stmt::Import(_) | Stmt::ImportFrom(_) => self.record_import(stmt),
                Stmt::FunctionDef(f) => {
                    self.module_functions.insert(f.name.id.to_string());
                    self.def_names.insert(f.name.id.to_string(), f.name.range);
                }
                Stmt::ClassDef(c) => {
                    self.module_classes.insert(c.name.id.to_string());
                }
                Stmt::Assign(a) => {
                    if let [Expr::Name(n)] = a.targets.as_slice()
                        && is_number_literal(&a.value)
                    {
                        self.globals
                            .insert(n.id.to_string(), Fact::of_kind(ValueKind::Scalar));
                        if super::shape_infer::literal_int(&a.value) == Some(1) {
                            self.global_ones.insert(n.id.to_string());
                        }
                    }
                }
                Stmt::If(s) => {
                    self.prepass(&s.body, counts, candidates);
                    for clause in &s.elif_else_clauses {
                        self.prepass(&clause.body, counts, candidates);
                    }
                }
                Stmt::Try(t) => {
                    self.prepass(&t.body, counts, candidates);
                    for handler in &t.handlers {
                        let ast::ExceptHandler::ExceptHandler(h) = handler;
                        self.prepass(&h.body, counts, candidates);
                    }
                }
                _ => {}
            }
        }
    }

    fn record_import(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Import(imp) => {
                for alias in &imp.names {
                    let full = alias.name.id.to_string();
                    match &alias.asname {
                        Some(asname) => {
                            self.imports.insert(asname.id.to_string(), full);
                        }
                        None => {
                            // `import a.b.c` binds `a`.
                            let root = full.split('.').next().unwrap_or(&full).to_string();
                            self.imports.insert(root.clone(), root);
                        }
                    }
                }
            }
            Stmt::ImportFrom(imp) => {
                let module = imp.module.as_ref().map(|m| m.id.as_str());
                let Some(base) = self.module.resolve_from(module, imp.level) else {
                    return;
                };
                for alias in &imp.names {
                    if alias.name.id.as_str() == "*" {
                        self.star_imports.push(base.clone());
                        continue;
                    }
                    let local = alias.asname.as_ref().unwrap_or(&alias.name).id.to_string();
                    let full = if base.is_empty() {
                        alias.name.id.to_string()
                    } else {
                        format!("{base}.{}", alias.name.id)
                    };
                    self.imported_names.push((full.clone(), alias.name.range));
                    self.imports.insert(local, full);
                }
            }
            _ => {}
        }
    }

    /// Every site with its facts, in source order. Which of them are worth a finding is the
    /// rules' policy (`rules::select_sites`), not the analysis's.
    fn finish(mut self) -> FileAnalysis {
        let copy_uses = std::mem::take(&mut self.copy_uses);
        let bypass = std::mem::take(&mut self.copy_read_bypass);
        // Where each repeated copy is converted (the sink, and the receiver of a method sink): a
        // read there is one of the copy's own conversions, which all move before the repeat
        // (`cos(idx), sin(idx)` of one `idx` copy: both go first and the copy is never made).
        let mut converted_at: HashMap<u32, Vec<TextRange>> = HashMap::new();
        for site in &self.sites {
            if let Some(c) = site.enlarged.copy_origin {
                let at = converted_at.entry(c).or_default();
                at.push(site.sink_step.range);
                at.extend(site.sink_step.receiver);
            }
        }
        let mut sites: Vec<Site> = self
            .sites
            .drain(..)
            .enumerate()
            .map(|(id, mut site)| {
                // `copy_origin` names the repeated copy the site converts; a read that no path
                // through this site makes does not count.
                let on_path = |at: &TextRange| {
                    !bypass
                        .get(&(at.start().to_u32(), at.end().to_u32()))
                        .is_some_and(|ids| ids.contains(&(id as SiteId)))
                };
                let converted = |at: &TextRange| {
                    site.enlarged
                        .copy_origin
                        .and_then(|c| converted_at.get(&c))
                        .is_some_and(|sinks| sinks.iter().any(|s| s.contains_range(*at)))
                };
                site.copy_read_elsewhere = site
                    .enlarged
                    .copy_origin
                    .and_then(|c| copy_uses.get(c as usize))
                    .is_some_and(|uses| {
                        let on = uses.iter().filter(|at| on_path(at)).count();
                        on > 1 && uses.iter().any(|at| on_path(at) && !converted(at))
                    });
                site
            })
            .collect();
        for candidate in self.repeats.drain(..) {
            let reads_broadcast = candidate.broadcast_use
                && !candidate.other_use
                && !candidate.returned
                && (candidate.may_if.is_none() || candidate.full_operand);
            let only_broadcast_reads = reads_broadcast && !candidate.table_join;
            sites.push(Site {
                sink: SinkKind::RepeatAsExpand {
                    expand_args: candidate.expand_args,
                    may_if: candidate.may_if,
                    number_operand: candidate.number_operand,
                    readers: match (
                        candidate.pointwise_use,
                        candidate.concat_use,
                        candidate.index_use,
                    ) {
                        (false, false, true) => RepeatReaders::Indexes,
                        (_, false, _) => RepeatReaders::Broadcasting,
                        (false, true, _) => RepeatReaders::Joins,
                        (true, true, _) => RepeatReaders::Both,
                    },
                    table_join: reads_broadcast && candidate.table_join,
                    read_through: candidate.read_through,
                },
                enlarged: candidate.enlarged,
                sink_step: Step {
                    role: StepRole::Sink,
                    file: None,
                    range: candidate.range,
                    code: candidate.code,
                    receiver: Some(candidate.receiver),
                    stmt: candidate.stmt_range,
                },
                stmt_range: candidate.stmt_range,
                result_dtype: candidate.dtype,
                source_dtype: candidate.dtype,
                result_shape: candidate.shape,
                scope_range: candidate.scope_range,
                receiver_code: None,
                repeats_earlier_on_line: false,
                result_escapes: false,
                result_returned: false,
                result_needs_contiguous: false,
                result_needs_dense: false,
                result_leaves_project: false,
                discarded: false,
                written_in_place: false,
                copy_read_elsewhere: false,
                only_broadcast_reads,
                returned_to_callers: candidate.helper.map(|(function, public)| {
                    let callers = self
                        .summaries
                        .repeat_callers
                        .get(&function)
                        .copied()
                        .unwrap_or_default();
                    ReturnedRepeat {
                        function,
                        public,
                        callers,
                    }
                }),
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
                constants: candidate.constants,
            });
        }
        // Stable: sites with the same range keep the order they were found in.
        sites.sort_by_key(|s| (s.sink_step.range.start(), s.sink_step.range.end()));
        for i in 0..sites.len() {
            let repeats = (0..i).any(|j| same_conversion_on_line(self.text, &sites[j], &sites[i]));
            sites[i].repeats_earlier_on_line = repeats;
        }
        let helper_reads = self.helper_reads();
        let mut enlargements = std::mem::take(&mut self.enlargements);
        enlargements.sort_by_key(|e| (e.range.start(), e.range.end()));
        FileAnalysis {
            sites,
            summaries: self.summaries_out,
            helper_reads,
            passed: self.passed_out,
            in_place: {
                let mut own: Vec<_> = self.in_place.values().map(|w| (**w).clone()).collect();
                own.sort_by(|a, b| a.qualname.cmp(&b.qualname));
                own
            },
            enlargements,
            skipped: self.skipped,
        }
    }

    /// For each function of the table that returns a `repeat` and is named in this file: its
    /// resolved calls, those read only by broadcasting, and every other mention of its name
    /// (as a whole word, strings and comments included: a doubt is a mention).
    fn helper_reads(&self) -> Vec<(String, CallerReads)> {
        let mut out = Vec::new();
        for helper in self.summaries.repeat_helpers() {
            let qualname = helper.qualname.as_str();
            let short = qualname.rsplit('.').next().unwrap_or(qualname);
            // `from m import *` of its module exports it (in a package's `__init__`) or binds it
            // unseen: a mention.
            let module = qualname.rsplit_once('.').map_or("", |(m, _)| m);
            let star = self
                .star_imports
                .iter()
                .filter(|m| module == m.as_str() || module.ends_with(&format!(".{m}")))
                .count() as u32;
            if star == 0 && !self.text.contains(short) {
                continue;
            }
            let mut reads = CallerReads::default();
            let mut accounted: Vec<u32> = Vec::new();
            for call in self.helper_calls.iter().filter(|c| c.qualname == qualname) {
                reads.calls += 1;
                if call.broadcast_use && !call.other_use {
                    reads.broadcast_calls += 1;
                }
                accounted.push(call.name.start().to_u32());
            }
            if reads.calls > 0 {
                reads.files = 1;
            }
            if format!("{}.{short}", self.module.qualname) == qualname
                && let Some(name) = self.def_names.get(short)
            {
                accounted.push(name.start().to_u32());
            }
            // An import of it in a package's `__init__` exports it: a mention.
            if !self.module.is_package {
                for (full, name) in &self.imported_names {
                    if self
                        .summaries
                        .get(full)
                        .is_some_and(|s| s.qualname == qualname)
                    {
                        accounted.push(name.start().to_u32());
                    }
                }
            }
            reads.other_mentions = word_offsets(self.text, short)
                .filter(|at| !accounted.contains(at))
                .count() as u32
                + star;
            if reads.calls > 0 || reads.other_mentions > 0 {
                out.push((helper.qualname.clone(), reads));
            }
        }
        out
    }

    fn code(&self, range: TextRange) -> String {
        collapse_code(self.text.get(range.to_std_range()).unwrap_or(""))
    }
}

/// Where `word` occurs in `text` as a whole identifier (byte offsets).
pub(super) fn word_offsets<'t>(text: &'t str, word: &'t str) -> impl Iterator<Item = u32> + 't {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).filter_map(move |(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        (!before.is_some_and(is_ident) && !after.is_some_and(is_ident)).then_some(i as u32)
    })
}

/// `b` converts the same value in the same way as the earlier `a`, on the same line.
fn same_conversion_on_line(text: &str, a: &Site, b: &Site) -> bool {
    let (from, to) = (
        usize::from(a.sink_step.range.start()),
        usize::from(b.sink_step.range.start()),
    );
    a.stmt_range == b.stmt_range
        && a.sink == b.sink
        && a.sink_step.code == b.sink_step.code
        && a.receiver_code == b.receiver_code
        && a.enlarged
            .steps
            .iter()
            .map(|s| s.range)
            .eq(b.enlarged.steps.iter().map(|s| s.range))
        && text
            .get(from..to)
            .is_some_and(|between| !between.contains('\n'))
}

/// Where the text of a step after its receiver starts: past the receiver's closing parentheses,
/// whitespace and line continuations (`(a - b).pow(2)` -> `.pow(2)`), but not past `limit`.
fn after_closing(
    text: &str,
    from: crate::source::TextSize,
    limit: crate::source::TextSize,
) -> crate::source::TextSize {
    let (start, end) = (usize::from(from), usize::from(limit).max(usize::from(from)));
    let Some(between) = text.get(start..end) else {
        return from;
    };
    let skipped = between
        .find(|c: char| !(c == ')' || c == '\\' || c.is_whitespace()))
        .unwrap_or(between.len());
    from + crate::source::TextSize::try_from(skipped).unwrap_or_default()
}
