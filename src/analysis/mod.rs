//! The tensor dataflow: which values are enlarged (broadcast views or repeated copies), where
//! they flow, and which operation writes them out at full size. It produces *sites* (facts about
//! the code); it knows no rule codes or messages.

pub mod call_constants;
pub mod census;
pub mod chain;
mod dataflow;
mod dtype_infer;
pub mod facts;
pub mod in_place;
pub mod model_config;
pub mod modules;
pub mod op_sites;
pub mod op_table;
mod passed;
mod shape_infer;
mod torch_api;

use std::collections::HashMap;
use std::sync::Arc;

pub use census::{Enlargement, NextUse, SkipReason, SkippedConversion};
pub use chain::{ChainEnd, ConversionChain, conversion_chain};
pub use dataflow::analyze_module;
pub use facts::{DType, Dim, EnlargeKind, Enlarged, Placement, Shape, Step, StepRole, SymExpr};
pub use in_place::InPlaceWrites;
pub use modules::ModuleInfo;
pub use passed::{PassedCall, PassedValue, defined_methods};

use crate::source::TextRange;

/// A tensor method that moves its receiver (`to`, `type_as`, `cuda`, ...).
pub fn is_move_method(name: &str) -> bool {
    name == "to" || name == "type_as" || torch_api::DEVICE_METHODS.contains(&name)
}

/// What the operation at a site does with the enlarged value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SinkKind {
    /// A dtype conversion; `target` when the dtype is obvious. `certain`: the argument is surely
    /// a dtype (a literal, `x.dtype`, a name annotated `torch.dtype`) and nothing else is passed.
    Cast {
        target: Option<DType>,
        certain: bool,
        /// The conversion is a reduction's `dtype=` (`m.sum(-1, dtype=torch.float32)`): the
        /// input is converted at full size, and the reduction itself cannot move.
        in_reduction: bool,
        /// The op that converts the value inside, when no cast is written: a bool `attn_mask` of
        /// `scaled_dot_product_attention`, which torch turns into an additive float mask at the
        /// size it is given. The remedy is to pass the mask before it is enlarged.
        inside: Option<&'static str>,
    },
    /// A move to another device (or `.to(tensor)`, `.type_as(t)`).
    DeviceMove,
    /// `.contiguous()`, `.clone()`, or a `reshape`/`flatten` that must copy.
    Materialize,
    /// An elementwise op whose other operands are scalars.
    Elementwise,
    /// A `repeat` only read by broadcasting consumers: `expand` with these arguments would do.
    RepeatAsExpand {
        expand_args: String,
        /// The repeated dims' sizes are not known: the condition under which `expand` would do
        /// (`dim 0 of `x` is 1`), said as a "may".
        may_if: Option<String>,
        /// A reader is a binary op with an operand that may be a number (`// self.beam_size`):
        /// its result has the copy's full shape, so the op belongs before the enlargement.
        number_operand: Option<NumberOperand>,
        /// Which kinds of consumer read the copy.
        readers: RepeatReaders,
        /// Every reader broadcasts or joins, but a join reads it with nothing but other copies
        /// and views: a table built from sizes alone (a coordinate grid), not reported.
        table_join: bool,
        /// An elementwise map the copy is read through before its broadcasting readers
        /// (`.float()` in `attn + z.float()`): it gives the same values on a view, and applied
        /// to the small source first its result is small too.
        read_through: Option<String>,
    },
}

/// An operand of unknown kind that a binary op reads a repeated copy with (`r // self.beam_size`):
/// if it is a number, the op's result has the copy's full shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NumberOperand {
    /// The operand as written (`self.beam_size`).
    pub operand: String,
    /// The operator and the operand as they read beside the copy (`// self.beam_size`,
    /// `1 - ` for a left operand: `1 -`).
    pub op_text: String,
}

/// The consumers that read a repeated copy that an `expand` could replace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RepeatReaders {
    /// Pointwise ops (and `gather`), which broadcast their operands.
    Broadcasting,
    /// Joins (`torch.cat`, `torch.stack`), which read any strides and copy once more.
    Joins,
    /// Both kinds.
    Both,
    /// Only tensor indexing (`preds[mask] = v`, `x[ids]`), which reads the index through its
    /// strides.
    Indexes,
}

/// Where a value moved to a named device was placed there before.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AlreadyOn {
    /// The device expression as written (`self.device`).
    pub device: String,
    /// The 1-based line of the move or factory that placed it.
    pub line: u32,
}

/// One place where an enlarged value is written out at full size.
#[derive(Clone, Debug)]
pub struct Site {
    pub sink: SinkKind,
    pub enlarged: Enlarged,
    /// The sink expression (for a method, from its name to the closing parenthesis).
    pub sink_step: Step,
    /// The statement holding the sink (suppression comments may sit on any of its lines).
    pub stmt_range: TextRange,
    /// The dtype of the full-size result, when known.
    pub result_dtype: Option<DType>,
    /// The dtype of the enlarged value the sink converts, when known (a cast to another dtype
    /// surely writes a new tensor; one from an unknown dtype may be a no-op).
    pub source_dtype: Option<DType>,
    /// The shape of the full-size result, when its rank is known.
    pub result_shape: Option<Shape>,
    /// The function (or module) the site is in.
    pub scope_range: TextRange,
    /// The code the sink method is called on (`cos` in `cos.to(x.dtype)`), whitespace collapsed;
    /// None for operators and functions.
    pub receiver_code: Option<String>,
    /// An earlier site on the same line is the same conversion of the same value
    /// (`torch.sin(t) / (torch.cos(t) + torch.sin(t))`): a finding would repeat its text.
    pub repeats_earlier_on_line: bool,
    /// The result leaves the function (returned, stored on an attribute): callers may write it.
    pub result_escapes: bool,
    /// The result is what the function returns (alone or in a returned tuple, list or dict).
    pub result_returned: bool,
    /// The result is used where a broadcast view would not do (`.view()`, `.data_ptr()`,
    /// `.numpy()`, `.stride()`).
    pub result_needs_contiguous: bool,
    /// The result is handed where only a dense tensor will do, whatever the consumer does with
    /// it: a kernel launch (`kernel[grid](x, ...)`), a `torch.ops.*` operator, `assert
    /// x.is_contiguous()`, `x.data_ptr()`. A broadcast view there fails or reads wrong memory, so
    /// the full-size copy is needed.
    pub result_needs_dense: bool,
    /// The result is passed to code outside the project (a function of another package that is
    /// not torch, a kernel launch, `torch.ops.*`): that code may check strides, so turning it
    /// into a broadcast view is not a change the project can see to be safe.
    pub result_leaves_project: bool,
    /// The result is thrown away (the sink is a whole expression statement).
    pub discarded: bool,
    /// The result is later written in place (`y += 1`, `y[i] = v`, `out=y`, `y.add_(1)`).
    pub written_in_place: bool,
    /// The repeated copy the sink converts is also read elsewhere (converting it first would need
    /// a second repeat).
    pub copy_read_elsewhere: bool,
    /// For [`SinkKind::RepeatAsExpand`]: the repeat's result is read only by broadcasting
    /// consumers (and not written in place), so `expand` would do.
    pub only_broadcast_reads: bool,
    /// For [`SinkKind::RepeatAsExpand`]: the repeat is what a module-level function returns, and
    /// nothing but broadcasting consumers reads it in that function; how the callers of the
    /// project read the result (see [`CallerReads`]).
    pub returned_to_callers: Option<ReturnedRepeat>,
    /// For [`SinkKind::Materialize`]: the copy merges the broadcast dims with others, either
    /// because the sink is a merging `reshape`/`flatten` or because a later `view`/`reshape`/
    /// `flatten` of the copy merges them (the copy is made for that layout).
    pub merged_later: bool,
    /// With `merged_later`: the rank after the merge, when known (1: flattened to an index list).
    pub merged_rank: Option<usize>,
    /// The result is passed where a dense tensor is needed: a convolution's weight.
    pub result_is_conv_weight: bool,
    /// The full-size result is converted again afterwards in the same function (cast, device
    /// move, elementwise op with scalars): a second full-size copy.
    pub result_converted: bool,
    /// The full-size result is converted again only by a caller, after the function returns it
    /// (`repeat_kv(key, n).float()`): the function's own copy is what it returns to every caller.
    pub result_converted_by_caller: bool,
    /// For [`SinkKind::DeviceMove`]: the enlarged value is known to live elsewhere than where it
    /// is moved (made on the host and moved to a device, or placed on a device and moved to the
    /// host). False when it may already be there, or when its origin is not known.
    pub moves_across_devices: bool,
    /// For [`SinkKind::DeviceMove`]: the facts say the value already lives where it is moved, in
    /// the dtype asked for (made with `device=` there, moved there earlier): the move returns
    /// the tensor itself. Neither this nor `moves_across_devices`: the origin is not known, and
    /// the move may copy.
    pub move_is_noop: bool,
    /// With `move_is_noop`: the device expression the value was already placed with, and the
    /// line of that move or factory (`.to(self.device)` twice).
    pub already_on: Option<AlreadyOn>,
    /// For [`SinkKind::Elementwise`]: the other operand is a tensor that lacks the enlarged dims
    /// (the mask of `masked_fill`, `mask & ~causal`), so the op could run before the enlargement.
    pub small_tensor_operand: bool,
    /// With `small_tensor_operand`: the other operand is itself a broadcast view over the same
    /// grown dims (`a.expand(b, h, q, k) & c.expand(b, h, q, k)`), so the op could run on both
    /// small sources and be expanded after; moving one enlargement alone would not do that.
    pub other_operand_enlarged: bool,
    /// The result is a loop's state: every pass rebinds its name to a value of at least its size
    /// computed from it (`h = layer(h)`, `z = block(z.to(d) + x)`, `h = h + f(h)`), so every pass
    /// makes a tensor of the full size anyway.
    pub result_is_loop_state: bool,
    /// The full-size result is an operand of an elementwise operator with another value
    /// (`bias + m.reshape(b, h, q, k)`, `x / std`): the op could run in the unmerged shape, on
    /// the broadcast view, so a merge of the broadcast dims was not made for a layout the code
    /// needs.
    pub result_combined: bool,
    /// The full-size result is an operand of a matrix product or attention (`matmul`, `bmm`,
    /// `@`, `einsum`, `scaled_dot_product_attention`): read in the merged layout.
    pub result_contracted: bool,
    /// The sink computes along a dim or into a new size (`softmax`, `F.normalize`, `nn.Linear`,
    /// `F.interpolate`): the reorder holds only where that dim did not grow, so no automatic fix.
    pub along_dim: bool,
    /// Literal constants of the module or the class that the result's shape or the enlargement's
    /// growth names, each as written: a size the code states (`NUM_HEADS = 4`), not one guessed
    /// from its name.
    pub constants: Vec<NamedConstant>,
}

/// A name bound once to an integer literal where every function of its scope reads it: a module
/// constant (`NUM_HEADS = 4`, `TOPK: int = 16`), a class-body constant (`num_heads = 4`, read as
/// `self.num_heads` or `cls.num_heads`) or an attribute `__init__` sets to a literal and nothing
/// else assigns (`self.topk = 8`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedConstant {
    /// The name as a shape reads it (`NUM_HEADS`; `num_heads` for `self.num_heads`).
    pub name: String,
    pub value: i64,
    /// The assignment as written (`NUM_HEADS = 4`, `self.topk = 8`).
    pub written: String,
    /// Its line in the file, from 1.
    pub line: u32,
    pub kind: ConstantKind,
}

/// How the code states a constant's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConstantKind {
    /// Bound to a literal (`NUM_HEADS = 4`, `self.topk = 8`).
    Literal,
    /// The literal default of the `__init__` parameter an attribute is set from (`def
    /// __init__(self, topk=8)` then `self.topk = topk`): the size unless a caller passes another,
    /// as a configuration class's defaults are.
    ParameterDefault,
}

/// One element of a returned tuple, list or dict display (`return m.expand(...), n`,
/// `return {"mask": m.expand(...)}`), and of a local container (`d["m"] = ...`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ElementKey {
    /// A position in a tuple or list.
    Index(u32),
    /// A string key of a dict.
    Key(String),
}

impl std::fmt::Display for ElementKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ElementKey::Index(i) => write!(f, "[{i}]"),
            ElementKey::Key(k) => write!(f, "[{k:?}]"),
        }
    }
}

/// A function whose return value (or, with `element`, one element of the tuple, list or dict it
/// returns) is enlarged: a conversion of its call result is a finding at the call site. Without
/// `enlarged`, a small module-level helper that returns a tensor whose dtype or placement every
/// return agrees on (`def key_padding_mask(x, pad): return x.eq(pad)`): its callers in other
/// files know what the result is. Serializable: the on-disk cache (`crate::cache`) stores them per file, so a new field needs
/// only its type to derive `Serialize`/`Deserialize`.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct FunctionSummary {
    pub qualname: String,
    /// Set when the summary is about one element of the returned container, not the whole value.
    pub element: Option<ElementKey>,
    /// A method (called as `self.name(...)` / `Class.name(...)`), not a module-level function.
    pub is_method: bool,
    pub params: Vec<String>,
    /// None: the function returns a tensor that is not enlarged, summarized for its dtype and
    /// placement only.
    pub enlarged: Option<Enlarged>,
    pub dtype: Option<DType>,
    /// When `dtype` is not known: the parameter whose dtype the result has, on every path (a
    /// tensor parameter's dtype, or the dtype a dtype parameter names: `torch.full(..., dtype=dtype)`).
    /// A parameter the function rebinds never counts.
    pub dtype_param: Option<String>,
    /// Where the returned value lives.
    pub placement: Placement,
    /// A module-level function whose whole result is (on some path) a `repeat` of size-1 dims
    /// that the function itself reads only by broadcasting: `expand` would do if every caller
    /// only broadcasts it too. Callers record how they read its result.
    #[serde(default)]
    pub returns_repeat: bool,
    /// The parameters of a module-level function that its body only reads by broadcasting
    /// consumers or for their sizes (`dataflow::param_reads`): a caller's `repeat` of size-1
    /// dims passed there could be an `expand`.
    #[serde(default)]
    pub broadcast_params: Vec<String>,
}

impl FunctionSummary {
    /// A summary that says nothing yet about the result (not enlarged, dtype and placement
    /// unknown): the caller sets the one fact it has.
    pub fn bare(qualname: &str, is_method: bool, params: &[String]) -> Self {
        FunctionSummary {
            qualname: qualname.to_string(),
            element: None,
            is_method,
            params: params.to_vec(),
            enlarged: None,
            dtype: None,
            dtype_param: None,
            placement: Placement::Unknown,
            returns_repeat: false,
            broadcast_params: Vec::new(),
        }
    }
}

/// A `repeat` returned by a function, and how the project reads what that function returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReturnedRepeat {
    /// The function's qualified name.
    pub function: String,
    /// The function's module is a package's `__init__`, or its name has no leading underscore.
    pub public: bool,
    pub callers: CallerReads,
}

/// How the files of a project read the result of a function that returns a `repeat`, summed over
/// the files that name it (see [`SummaryTable::repeat_callers`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CallerReads {
    /// Calls resolved to the function.
    pub calls: u32,
    /// Of those, calls whose result is read, and only by broadcasting consumers (operands of
    /// binary operators, `torch.where`, a mask): never written in place, viewed, converted,
    /// returned or passed to another call.
    pub broadcast_calls: u32,
    /// Mentions of the function's name that are not such calls, its `def` or an import of it
    /// outside a package's `__init__`: the function used as a value, listed in `__all__`,
    /// re-exported, named in a string or comment, or a name it shares with something else.
    pub other_mentions: u32,
    /// Files with a resolved call.
    pub files: u32,
}

impl CallerReads {
    /// Adds one file's reads.
    pub fn add(&mut self, other: &CallerReads) {
        self.calls += other.calls;
        self.broadcast_calls += other.broadcast_calls;
        self.other_mentions += other.other_mentions;
        self.files += other.files;
    }
}

/// Summaries of the whole project, keyed by qualified name (`pkg.mod.func`,
/// `pkg.mod.Class.method`). Add with [`SummaryTable::insert`] so that lookups by a shorter
/// dotted name work too.
#[derive(Default, Debug)]
pub struct SummaryTable {
    pub functions: HashMap<String, Arc<FunctionSummary>>,
    /// Functions that return a container with enlarged elements: one summary per element.
    pub elements: HashMap<String, Vec<Arc<FunctionSummary>>>,
    /// Last name -> qualified names with that last name.
    by_short: HashMap<String, Vec<String>>,
    /// For each function that returns a `repeat` (`FunctionSummary::returns_repeat`), by
    /// qualified name: how the whole project reads its result. Filled once every file has been
    /// read (the linter sums each file's [`FileAnalysis::helper_reads`]).
    pub repeat_callers: HashMap<String, CallerReads>,
    /// The last names of functions whose result (or an element of it) is enlarged.
    enlarging_short: std::collections::HashSet<String>,
    /// Calls that pass enlarged values into another file, by the callee's last name (see
    /// [`PassedCall`]).
    passed: HashMap<String, Vec<PassedCall>>,
    /// Methods of the project's classes by last name (see [`SummaryTable::sole_method`]).
    methods: HashMap<String, Vec<String>>,
    /// Functions that write what they are given in place, by last name (see [`in_place`]).
    in_place: HashMap<String, Vec<Arc<InPlaceWrites>>>,
    /// Count parameters that every call of the project passes as 1, by the function's
    /// qualified name (see [`call_constants`]).
    pub unit_counts: HashMap<String, Vec<String>>,
}

impl SummaryTable {
    /// Looks a function up by its qualified name; failing that, by a name that is a dotted
    /// suffix of exactly one qualified name (`pkg.masks.build` for `src.pkg.masks.build`: a
    /// module imported through a namespace package or a `src/` folder on the path).
    pub fn get(&self, qualname: &str) -> Option<&Arc<FunctionSummary>> {
        self.functions
            .get(qualname)
            .or_else(|| self.functions.get(self.by_suffix(qualname)?))
    }

    /// The enlarged elements of what `qualname` returns (empty when none is known), looked up as
    /// [`SummaryTable::get`] does.
    pub fn elements(&self, qualname: &str) -> &[Arc<FunctionSummary>] {
        self.elements
            .get(qualname)
            .or_else(|| self.elements.get(self.by_suffix(qualname)?))
            .map_or(&[], Vec::as_slice)
    }

    /// The one known qualified name that ends with `.{qualname}`; None when none or several do.
    fn by_suffix(&self, qualname: &str) -> Option<&str> {
        let (_, short) = qualname.rsplit_once('.')?;
        let mut found = None;
        for candidate in self.by_short.get(short)? {
            let is_suffix = candidate.len() > qualname.len()
                && candidate.ends_with(qualname)
                && candidate.as_bytes()[candidate.len() - qualname.len() - 1] == b'.';
            if is_suffix {
                if found.is_some() {
                    return None;
                }
                found = Some(candidate.as_str());
            }
        }
        found
    }

    /// Adds a summary unless one for the same function (and element) is known; returns whether
    /// it was added. A summary of an enlarged result replaces one of the dtype alone (a later
    /// pass, knowing other files' helpers, sees that the function returns an enlarged value).
    pub fn insert(&mut self, summary: FunctionSummary) -> bool {
        let qualname = summary.qualname.clone();
        let short = qualname.rsplit('.').next().unwrap_or(&qualname).to_string();
        if summary.enlarged.is_some() {
            self.enlarging_short.insert(short.clone());
        }
        match &summary.element {
            None => {
                if self
                    .functions
                    .get(&qualname)
                    .is_some_and(|known| known.enlarged.is_some() || summary.enlarged.is_none())
                {
                    return false;
                }
                self.functions.insert(qualname.clone(), Arc::new(summary));
            }
            Some(key) => {
                let list = self.elements.entry(qualname.clone()).or_default();
                if list.iter().any(|s| s.element.as_ref() == Some(key)) {
                    return false;
                }
                list.push(Arc::new(summary));
            }
        }
        let names = self.by_short.entry(short).or_default();
        if !names.contains(&qualname) {
            names.push(qualname);
        }
        true
    }

    /// The functions whose result is a `repeat` that callers may only broadcast.
    pub fn repeat_helpers(&self) -> impl Iterator<Item = &FunctionSummary> {
        self.functions
            .values()
            .map(|s| &**s)
            .filter(|s| s.returns_repeat && s.element.is_none() && !s.is_method)
    }

    /// Forgets the summaries of the functions defined in `module` (not what the project's reads
    /// of them are: [`SummaryTable::repeat_callers`] stays).
    pub fn remove_module(&mut self, module: &str) {
        let prefix = format!("{module}.");
        // `module.f`, or `module.Class.m` for a method (not `module.sub.f` of a subpackage).
        let defined_there = |s: &FunctionSummary| {
            s.qualname
                .strip_prefix(&prefix)
                .is_some_and(|rest| rest.matches('.').count() == usize::from(s.is_method))
        };
        self.functions.retain(|_, s| !defined_there(s));
        self.elements.retain(|_, list| {
            list.retain(|s| !defined_there(s));
            !list.is_empty()
        });
        let (functions, elements) = (&self.functions, &self.elements);
        for names in self.by_short.values_mut() {
            names.retain(|q| functions.contains_key(q) || elements.contains_key(q));
        }
        self.by_short.retain(|_, names| !names.is_empty());
        self.in_place.retain(|_, list| {
            list.retain(|w| {
                w.qualname
                    .strip_prefix(&prefix)
                    .is_none_or(|rest| rest.matches('.').count() != usize::from(w.is_method))
            });
            !list.is_empty()
        });
    }

    pub fn is_empty(&self) -> bool {
        self.functions.is_empty()
            && self.elements.is_empty()
            && self.passed.is_empty()
            && self.in_place.is_empty()
    }

    /// The short names of the functions that return an enlarged value (a cheap pre-filter: a
    /// function that mentions none of them and no enlarger cannot have a site).
    pub fn short_names(&self) -> impl Iterator<Item = &str> {
        self.enlarging_short.iter().map(String::as_str)
    }
}

/// What the analysis found in one file.
#[derive(Default, Debug)]
pub struct FileAnalysis {
    /// Every site, in source order, with the facts that decide whether it is worth a finding
    /// (that policy belongs to the rules: `rules::select_sites`).
    pub sites: Vec<Site>,
    pub summaries: Vec<FunctionSummary>,
    /// For each function of the table that returns a `repeat` and is named in this file (by
    /// qualified name): how this file reads its result.
    pub helper_reads: Vec<(String, CallerReads)>,
    /// Calls of this file that pass enlarged values into functions of other files.
    pub passed: Vec<PassedCall>,
    /// This file's functions that write a parameter or a `self` attribute in place.
    pub in_place: Vec<InPlaceWrites>,
    /// Every enlarger call walked, in source order (for `oomlint sites`).
    pub enlargements: Vec<Enlargement>,
    /// Conversions of an enlarged value found to be no-ops, which made no site.
    pub skipped: Vec<SkippedConversion>,
}

/// Does the module define functions at its top level (whose results may be summarized)?
pub fn has_module_functions(body: &[crate::source::ast::Stmt]) -> bool {
    body.iter()
        .any(|stmt| matches!(stmt, crate::source::ast::Stmt::FunctionDef(_)))
}

/// What [`mentions_enlarger`] looks for.
const ENLARGER_NEEDLES: [&str; 6] = ["expand", "broadcast_t", "repeat", "tile", "cat(", "stack("];

/// Cheap test: can this text contain an enlargement at all (directly)?
pub fn mentions_enlarger(text: &str) -> bool {
    // One SIMD pass for all six (Teddy), where the CPU has one.
    static ENLARGERS: std::sync::LazyLock<Option<aho_corasick::packed::Searcher>> =
        std::sync::LazyLock::new(|| aho_corasick::packed::Searcher::new(ENLARGER_NEEDLES));
    match &*ENLARGERS {
        Some(searcher) => searcher.find(text).is_some(),
        None => ENLARGER_NEEDLES.iter().any(|needle| text.contains(needle)),
    }
}

/// Where a file's text mentions each of some needles, found once: whether a part of the file
/// (a class, a function body, an argument) contains one, without reading that part again.
pub(crate) struct Mentions {
    /// Per needle, its length and every offset where it starts (overlapping ones too), ascending.
    starts: Vec<(usize, Vec<usize>)>,
    /// A needle is empty: every text contains it.
    empty: bool,
}

/// At most this many needles are found in one pass (Teddy's limit).
const PACKED_NEEDLES: usize = 64;

impl Mentions {
    pub(crate) fn new<'n>(text: &str, needles: impl IntoIterator<Item = &'n str>) -> Self {
        let mut needles: Vec<&str> = needles.into_iter().collect();
        if needles.iter().any(|n| n.is_empty()) {
            return Mentions {
                starts: Vec::new(),
                empty: true,
            };
        }
        if needles.len() <= PACKED_NEEDLES {
            // A needle holding another adds nothing to "holds one"; without such needles no two
            // start at one offset, so one search restarted after each start finds them all.
            needles.sort_unstable();
            needles.dedup();
            let all = needles.clone();
            needles.retain(|n| !all.iter().any(|m| m != n && n.contains(m)));
            if let Some(searcher) = aho_corasick::packed::Searcher::new(&needles) {
                let bytes = text.as_bytes();
                let mut found = vec![Vec::new(); needles.len()];
                let mut at = 0;
                while let Some(m) =
                    searcher.find_in(bytes, aho_corasick::Span::from(at..bytes.len()))
                {
                    found[m.pattern().as_usize()].push(m.start());
                    at = m.start() + 1;
                }
                let starts = needles.iter().map(|n| n.len()).zip(found).collect();
                return Mentions {
                    starts,
                    empty: false,
                };
            }
        }
        let starts = needles
            .into_iter()
            .map(|needle| {
                let finder = memchr::memmem::Finder::new(needle);
                let (mut at, mut found) = (0, Vec::new());
                while let Some(i) = text.as_bytes().get(at..).and_then(|rest| finder.find(rest)) {
                    found.push(at + i);
                    at += i + 1;
                }
                (needle.len(), found)
            })
            .collect();
        Mentions {
            starts,
            empty: false,
        }
    }

    /// Does `text[range]` contain a needle ("" standing for a range that is no slice of `text`)?
    pub(crate) fn within(&self, text: &str, range: std::ops::Range<usize>) -> bool {
        if self.empty {
            return true;
        }
        if text.get(range.clone()).is_none() {
            return false;
        }
        self.starts.iter().any(|(len, starts)| {
            let first = starts.partition_point(|&at| at < range.start);
            starts.get(first).is_some_and(|&at| at + len <= range.end)
        })
    }
}

/// [`mentions_enlarger`] of every part of a file.
pub(crate) fn enlarger_mentions(text: &str) -> Mentions {
    Mentions::new(text, ENLARGER_NEEDLES)
}

#[cfg(test)]
mod summary_table_tests {
    use super::*;

    #[test]
    fn mentions_of_a_range_are_those_of_its_text() {
        let text = "a = x.expand(2)\nb = torch.cat([a])\nc = y.repeat(3) # tile\né = stack(ababa";
        let needles = ["aba", "a = ", "é"];
        let (enlargers, others) = (enlarger_mentions(text), Mentions::new(text, needles));
        for start in 0..=text.len() {
            for end in start..=text.len() + 1 {
                let part = text.get(start..end);
                let want = part.is_some_and(mentions_enlarger);
                assert_eq!(enlargers.within(text, start..end), want, "{start}..{end}");
                let want = part.is_some_and(|p| needles.iter().any(|n| p.contains(n)));
                assert_eq!(others.within(text, start..end), want, "{start}..{end}");
            }
        }
        assert!(Mentions::new(text, ["x", ""]).within(text, 0..0));
        // Needles holding others, repeated ones, and more than one pass takes.
        let nested = ["ab", "aba", "bab", "ab", "pea", "repeat"];
        let many: Vec<String> = (0..70)
            .map(|i| format!("q{i}"))
            .chain(["ta".into()])
            .collect();
        for needles in [nested.to_vec(), many.iter().map(String::as_str).collect()] {
            let mentions = Mentions::new(text, needles.iter().copied());
            for start in 0..=text.len() {
                for end in start..=text.len() {
                    let want = text
                        .get(start..end)
                        .is_some_and(|p| needles.iter().any(|n| p.contains(n)));
                    assert_eq!(mentions.within(text, start..end), want, "{start}..{end}");
                }
            }
        }
    }

    fn summary(qualname: &str, enlarged: bool, dtype: Option<DType>) -> FunctionSummary {
        FunctionSummary {
            qualname: qualname.to_string(),
            element: None,
            is_method: false,
            params: vec!["x".to_string()],
            enlarged: enlarged.then(|| Enlarged {
                kind: EnlargeKind::View,
                op: "expand".to_string(),
                steps: Vec::new(),
                shape: None,
                receiver_code: "x".to_string(),
                may: false,
                copy_origin: None,
                growth: None,
                leading_sizes: Vec::new(),
            }),
            dtype,
            dtype_param: None,
            placement: Placement::Unknown,
            returns_repeat: false,
            broadcast_params: Vec::new(),
        }
    }

    #[test]
    fn an_enlarged_result_replaces_a_dtype_summary_and_not_the_reverse() {
        let mut table = SummaryTable::default();
        assert!(table.insert(summary("pkg.masks.pad_mask", false, Some(DType::Bool))));
        // A dtype-only summary is found by a shorter dotted name too, but is no reason to walk a
        // function that mentions it.
        assert!(table.get("masks.pad_mask").is_some());
        assert_eq!(table.short_names().count(), 0);
        // A later pass sees that it returns an enlarged value: that wins.
        assert!(table.insert(summary("pkg.masks.pad_mask", true, None)));
        assert!(table.get("pkg.masks.pad_mask").unwrap().enlarged.is_some());
        assert_eq!(table.short_names().collect::<Vec<_>>(), vec!["pad_mask"]);
        // Neither a second enlarged summary nor a dtype-only one replaces it.
        assert!(!table.insert(summary("pkg.masks.pad_mask", false, Some(DType::Bool))));
        assert!(!table.insert(summary("pkg.masks.pad_mask", true, Some(DType::Bool))));
        assert!(table.get("pkg.masks.pad_mask").unwrap().enlarged.is_some());
    }
}
