//! The tensor dataflow: which values are enlarged (broadcast views or repeated copies), where
//! they flow, and which operation writes them out at full size. It produces *sites* (facts about
//! the code); it knows no rule codes or messages.

pub mod chain;
mod dataflow;
mod dtype_infer;
pub mod facts;
pub mod modules;
pub mod op_sites;
mod shape_infer;
mod torch_api;

use std::collections::HashMap;
use std::sync::Arc;

pub use chain::{ChainEnd, ConversionChain, conversion_chain};
pub use dataflow::analyze_module;
pub use facts::{DType, Dim, EnlargeKind, Enlarged, Placement, Shape, Step, StepRole, SymExpr};
pub use modules::ModuleInfo;

use crate::source::TextRange;

/// What the operation at a site does with the enlarged value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SinkKind {
    /// A dtype conversion; `target` when the dtype is obvious. `certain`: the argument is surely
    /// a dtype (a literal, `x.dtype`, a name annotated `torch.dtype`) and nothing else is passed.
    Cast {
        target: Option<DType>,
        certain: bool,
    },
    /// A move to another device (or `.to(tensor)`, `.type_as(t)`).
    DeviceMove,
    /// `.contiguous()`, `.clone()`, or a `reshape`/`flatten` that must copy.
    Materialize,
    /// An elementwise op whose other operands are scalars.
    Elementwise,
    /// A `repeat` only read by broadcasting consumers: `expand` with these arguments would do.
    RepeatAsExpand { expand_args: String },
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
    /// The result is used where a broadcast view would not do (`.view()`, `.data_ptr()`,
    /// `.numpy()`, `.stride()`).
    pub result_needs_contiguous: bool,
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
    /// For [`SinkKind::Materialize`]: the copy merges the broadcast dims with others, either
    /// because the sink is a merging `reshape`/`flatten` or because a later `view`/`reshape`/
    /// `flatten` of the copy merges them (the copy is made for that layout).
    pub merged_later: bool,
    /// With `merged_later`: the rank after the merge, when known (1: flattened to an index list).
    pub merged_rank: Option<usize>,
    /// The result is passed where a dense tensor is needed: a convolution's weight.
    pub result_is_conv_weight: bool,
    /// The full-size result is converted again afterwards (cast, device move, elementwise op
    /// with scalars): a second full-size copy.
    pub result_converted: bool,
    /// For [`SinkKind::DeviceMove`]: the enlarged value is known to live elsewhere than where it
    /// is moved (made on the host and moved to a device, or placed on a device and moved to the
    /// host). False when it may already be there, or when its origin is not known.
    pub moves_across_devices: bool,
}

/// A function whose return value is enlarged: a conversion of its call result is a finding at
/// the call site.
#[derive(Clone, Debug)]
pub struct FunctionSummary {
    pub qualname: String,
    /// A method (called as `self.name(...)` / `Class.name(...)`), not a module-level function.
    pub is_method: bool,
    pub params: Vec<String>,
    pub enlarged: Enlarged,
    pub dtype: Option<DType>,
    /// Where the returned value lives.
    pub placement: Placement,
}

/// Summaries of the whole linted tree, keyed by qualified name (`pkg.mod.func`,
/// `pkg.mod.Class.method`).
#[derive(Default, Debug)]
pub struct SummaryTable {
    pub functions: HashMap<String, Arc<FunctionSummary>>,
}

impl SummaryTable {
    pub fn get(&self, qualname: &str) -> Option<&Arc<FunctionSummary>> {
        self.functions.get(qualname)
    }

    pub fn is_empty(&self) -> bool {
        self.functions.is_empty()
    }

    /// The short names of all summarized functions (a cheap pre-filter: a file that mentions none
    /// of them and no enlarger cannot have a finding).
    pub fn short_names(&self) -> impl Iterator<Item = &str> {
        self.functions
            .keys()
            .map(|q| q.rsplit('.').next().unwrap_or(q.as_str()))
    }
}

/// What the analysis found in one file.
#[derive(Default, Debug)]
pub struct FileAnalysis {
    /// Every site, in source order, with the facts that decide whether it is worth a finding
    /// (that policy belongs to the rules: `rules::select_sites`).
    pub sites: Vec<Site>,
    pub summaries: Vec<FunctionSummary>,
}

/// Cheap test: can this text contain an enlargement at all (directly)?
pub fn mentions_enlarger(text: &str) -> bool {
    ["expand", "broadcast_to", "repeat", "tile"]
        .iter()
        .any(|needle| text.contains(needle))
        || text.contains("cat(")
}
