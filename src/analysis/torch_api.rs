//! What the analysis knows about PyTorch's API: which methods enlarge, which keep a view, which
//! write a full-size result. Kept as plain tables so the rules stay readable; what torch's own
//! metadata says of an op (kind, result dtype) is in `op_table`.

use super::facts::DType;
use super::op_table;

/// A module path inside torch itself (`torch`, `torch.nn.functional`), not another package whose
/// name starts with "torch" (`torch_npu`, `torchvision`, `torch_scatter`), whose functions are
/// outside the project and may read their tensors as dense memory.
pub fn is_torch_module(path: &str) -> bool {
    path == "torch" || path.starts_with("torch.")
}

/// Methods that return a broadcast (stride-0) view.
pub const VIEW_ENLARGERS: &[&str] = &["expand", "expand_as", "broadcast_to"];

/// Methods that return an enlarged copy.
pub const COPY_ENLARGERS: &[&str] = &["repeat", "repeat_interleave", "tile"];

/// A tensor method that writes its receiver in place: torch's trailing-underscore convention
/// (`add_`, `masked_fill_`, `index_copy_`), or one torch's metadata marks in-place;
/// `requires_grad_` only sets a flag.
pub fn is_in_place_method(name: &str) -> bool {
    name != "requires_grad_"
        && ((name.ends_with('_') && !name.starts_with("__"))
            || op_table::method(name).is_some_and(|op| op.kind == op_table::OpKind::InPlace))
}

/// Methods that return a view of their receiver (an enlarged value stays enlarged through them).
pub const VIEW_METHODS: &[&str] = &[
    "view",
    "reshape",
    "flatten",
    "unflatten",
    "unsqueeze",
    "squeeze",
    "transpose",
    "swapaxes",
    "swapdims",
    "permute",
    "movedim",
    "moveaxis",
    "narrow",
    "select",
    "detach",
    "requires_grad_",
    "view_as",
    "reshape_as",
    "t",
];

/// Methods and attributes whose use of an enlarged result needs it contiguous: a broadcast view
/// would not do (`.view()` fails on it, `.data_ptr()`/`.numpy()` see its real layout).
pub const NEEDS_CONTIGUOUS: &[&str] = &[
    "view",
    "data_ptr",
    "numpy",
    "stride",
    "is_contiguous",
    "storage",
    "untyped_storage",
];

/// Methods that only read metadata: calling them does not consume a repeated copy.
pub const METADATA_METHODS: &[&str] = &["size", "dim", "numel", "element_size", "stride"];

/// Attributes read without consuming a repeated copy (metadata, or a view of it).
pub const NON_CONSUMING_ATTRIBUTES: &[&str] = &[
    "dtype",
    "device",
    "shape",
    "ndim",
    "is_cuda",
    "requires_grad",
    "T",
    "mT",
    "H",
    "mH",
    "data",
];

/// Tensor methods that return a Python number.
pub const SCALAR_METHODS: &[&str] = &["size", "dim", "numel", "item", "element_size", "nelement"];

/// Tensor methods that return something other than a tensor (an array, a list, metadata).
pub const NON_TENSOR_METHODS: &[&str] = &["numpy", "tolist", "data_ptr", "stride", "is_contiguous"];

/// Python builtins that return a number.
pub const SCALAR_BUILTINS: &[&str] = &["float", "int", "len", "round", "abs", "min", "max", "bool"];

/// Python builtins that return something other than a tensor.
pub const NON_TENSOR_BUILTINS: &[&str] = &[
    "str",
    "repr",
    "list",
    "tuple",
    "dict",
    "set",
    "range",
    "print",
    "isinstance",
    "getattr",
    "hasattr",
];

/// Methods that move a tensor to another device.
pub const DEVICE_METHODS: &[&str] = &["cuda", "cpu", "npu", "xpu", "mps"];

/// Methods that copy a tensor into page-locked host memory (`.pin_memory()`): not a device move.
/// The copy is a new dense host tensor made for an asynchronous transfer; pinning the small
/// tensor before the enlargement would not pin the enlarged result (a `repeat` allocates anew),
/// so no reorder gives the same result.
pub const PIN_METHODS: &[&str] = &["pin_memory"];

/// Methods that write out a full copy of their receiver.
pub const MATERIALIZE_METHODS: &[&str] = &["contiguous", "clone"];

/// Elementwise methods of one tensor (no other operand) that write a full-size result.
pub const UNARY_ELEMENTWISE: &[&str] = &[
    "logical_not",
    "bitwise_not",
    "abs",
    "neg",
    "negative",
    "exp",
    "exp2",
    "expm1",
    "log",
    "log2",
    "log10",
    "log1p",
    "sqrt",
    "rsqrt",
    "sigmoid",
    "tanh",
    "relu",
    "sign",
    "sgn",
    "reciprocal",
    "square",
    "floor",
    "ceil",
    "round",
    "trunc",
    "sin",
    "cos",
    "erf",
    "isnan",
    "isinf",
    "isfinite",
    "signbit",
];

/// Elementwise methods that take other operands; a finding only when every other operand is a
/// scalar.
pub const BINARY_ELEMENTWISE: &[&str] = &[
    "add",
    "sub",
    "subtract",
    "mul",
    "multiply",
    "div",
    "divide",
    "true_divide",
    "floor_divide",
    "pow",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "clamp",
    "clamp_min",
    "clamp_max",
    "clip",
    "logical_and",
    "logical_or",
    "logical_xor",
    "masked_fill",
];

/// The op table's fixed result dtype of a method or `torch.*` function of this name.
fn table_result(name: &str) -> Option<DType> {
    let op = op_table::method(name).or_else(|| op_table::function("torch", name));
    op_table::fixed_result_dtype(op)
}

/// Methods and functions whose result is bool (comparisons, `isin`, `isnan`, `logical_*`), by the
/// op table.
pub fn returns_bool(name: &str) -> bool {
    table_result(name) == Some(DType::Bool)
}

/// Methods and functions that return int64 indices (`argsort`, `nonzero`), by the op table; and
/// those its probe cannot call on a plain tensor or that draw at random, by hand: `bucketize`
/// (needs sorted boundaries), `multinomial` (random, so the probe marks it not reorderable and
/// keeps no dtype), `randperm` (a factory whose dtype is `dtype=`, int64 by default).
pub fn returns_int64(name: &str) -> bool {
    table_result(name) == Some(DType::Int64)
        || matches!(name, "bucketize" | "multinomial" | "randperm")
}

/// Methods that keep their receiver's dtype (for dtype tracking of ordinary tensors).
pub const DTYPE_PRESERVING: &[&str] = &[
    "tril",
    "triu",
    "flip",
    "roll",
    "masked_fill",
    "clone",
    "contiguous",
    "detach",
    "cumsum",
];

/// Torch factories shaped like another tensor (`torch.ones_like(x)`): its dtype and shape.
pub const LIKE_FACTORIES: &[&str] = &[
    "ones_like",
    "zeros_like",
    "empty_like",
    "full_like",
    "rand_like",
    "randn_like",
];

/// Torch functions that join tensors (`torch.cat([x] * n)` repeats `x`).
pub const CONCAT_FUNCTIONS: &[&str] = &["cat", "concat", "concatenate"];

/// Torch functions that return something other than a tensor.
pub const NON_TENSOR_FUNCTIONS: &[&str] = &["finfo", "iinfo", "Size", "is_tensor", "no_grad"];

/// Torch functions whose result has their first argument's dtype and shape.
pub const SHAPE_PRESERVING_FUNCTIONS: &[&str] = &["tril", "triu", "flip", "roll"];

/// Torch functions that build a tensor from data (its dtype only when `dtype=` says it).
pub const TENSOR_CONSTRUCTORS: &[&str] = &["tensor", "as_tensor", "from_numpy"];

/// Constants of `math`/`numpy` that are Python numbers.
pub const MATH_CONSTANTS: &[&str] = &["inf", "pi", "e", "nan"];

/// Attributes that are float constants (`torch.finfo(t).min`, `math.inf`, `finfo.eps`).
pub const FLOAT_CONSTANT_ATTRIBUTES: &[&str] = &["min", "max", "inf", "eps", "tiny"];

/// Modules whose functions and values are clearly not torch tensors.
pub fn is_non_tensor_module(path: &str) -> bool {
    let root = path.split('.').next().unwrap_or(path);
    matches!(
        root,
        "numpy"
            | "np"
            | "math"
            | "itertools"
            | "re"
            | "os"
            | "sys"
            | "random"
            | "pandas"
            | "pd"
            | "jax"
            | "jnp"
            | "tensorflow"
            | "tf"
            | "string"
            | "functools"
            | "operator"
            | "collections"
            | "pathlib"
            | "json"
            | "einops"
            | "scipy"
            | "PIL"
            | "cv2"
    )
}

/// Torch factory functions that build a tensor from sizes (`torch.ones(b, s)`).
pub fn is_sized_factory(name: &str) -> bool {
    matches!(
        name,
        "ones" | "zeros" | "empty" | "rand" | "randn" | "full" | "randint"
    )
}

/// The public methods of `torch.nn.Module` (torch 2.x): a call of one of these on an object of
/// unknown class is most likely the module's own, not a project method of that name. Hand list:
/// the op table holds tensor methods and functions, not `nn.Module`'s.
pub const MODULE_METHODS: &[&str] = &[
    "add_module",
    "apply",
    "bfloat16",
    "buffers",
    "children",
    "compile",
    "cpu",
    "cuda",
    "double",
    "eval",
    "extra_repr",
    "float",
    "forward",
    "get_buffer",
    "get_extra_state",
    "get_parameter",
    "get_submodule",
    "half",
    "ipu",
    "load_state_dict",
    "modules",
    "mtia",
    "named_buffers",
    "named_children",
    "named_modules",
    "named_parameters",
    "parameters",
    "register_backward_hook",
    "register_buffer",
    "register_forward_hook",
    "register_forward_pre_hook",
    "register_full_backward_hook",
    "register_full_backward_pre_hook",
    "register_load_state_dict_post_hook",
    "register_load_state_dict_pre_hook",
    "register_module",
    "register_parameter",
    "register_state_dict_post_hook",
    "register_state_dict_pre_hook",
    "requires_grad_",
    "set_extra_state",
    "set_submodule",
    "share_memory",
    "state_dict",
    "to",
    "to_empty",
    "train",
    "type",
    "xpu",
    "zero_grad",
];

/// The public methods of Python's builtin types (`list`, `dict`, `str`, `set`, `tuple`, `bytes`,
/// `int`, `float`), as `dir()` lists them: an object of unknown class may be one of those.
pub const BUILTIN_METHODS: &[&str] = &[
    "add",
    "append",
    "as_integer_ratio",
    "bit_count",
    "bit_length",
    "capitalize",
    "casefold",
    "center",
    "clear",
    "conjugate",
    "copy",
    "count",
    "decode",
    "denominator",
    "difference",
    "difference_update",
    "discard",
    "encode",
    "endswith",
    "expandtabs",
    "extend",
    "find",
    "format",
    "format_map",
    "from_bytes",
    "fromhex",
    "fromkeys",
    "get",
    "hex",
    "imag",
    "index",
    "insert",
    "intersection",
    "intersection_update",
    "is_integer",
    "isalnum",
    "isalpha",
    "isascii",
    "isdecimal",
    "isdigit",
    "isdisjoint",
    "isidentifier",
    "islower",
    "isnumeric",
    "isprintable",
    "isspace",
    "issubset",
    "issuperset",
    "istitle",
    "isupper",
    "items",
    "join",
    "keys",
    "ljust",
    "lower",
    "lstrip",
    "maketrans",
    "numerator",
    "partition",
    "pop",
    "popitem",
    "real",
    "remove",
    "removeprefix",
    "removesuffix",
    "replace",
    "reverse",
    "rfind",
    "rindex",
    "rjust",
    "rpartition",
    "rsplit",
    "rstrip",
    "setdefault",
    "sort",
    "split",
    "splitlines",
    "startswith",
    "strip",
    "swapcase",
    "symmetric_difference",
    "symmetric_difference_update",
    "title",
    "to_bytes",
    "translate",
    "union",
    "update",
    "upper",
    "values",
    "zfill",
];

/// May a call `obj.name(...)` on an object of unknown class be guessed to be the project's only
/// method `name`? Not for a name torch, `nn.Module` or a builtin type has (the object may well
/// be one of those), nor a dunder.
pub fn guessable_method(name: &str) -> bool {
    // One hashed look-up, not 140 comparisons: asked for every method call the walk meets.
    static KNOWN: std::sync::LazyLock<rustc_hash::FxHashSet<&'static str>> =
        std::sync::LazyLock::new(|| {
            MODULE_METHODS
                .iter()
                .chain(BUILTIN_METHODS)
                .copied()
                .collect()
        });
    !name.starts_with("__") && !op_table::names_anything(name) && !KNOWN.contains(name)
}
