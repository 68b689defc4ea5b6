//! The abstract values the dataflow tracks: dtypes, symbolic shapes, and whether a value is an
//! enlarged tensor (a broadcast view or a repeated copy) together with the chain that made it so.

use std::fmt;
use std::rc::Rc;
use std::sync::Arc;

use crate::source::TextRange;

/// A tensor element type that the code makes obvious.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum DType {
    Bool,
    UInt8,
    Int8,
    Int16,
    Int32,
    Int64,
    Float16,
    BFloat16,
    Float32,
    Float64,
    Complex64,
    Complex128,
}

impl DType {
    pub fn itemsize(self) -> u64 {
        match self {
            DType::Bool | DType::UInt8 | DType::Int8 => 1,
            DType::Int16 | DType::Float16 | DType::BFloat16 => 2,
            DType::Int32 | DType::Float32 => 4,
            DType::Int64 | DType::Float64 | DType::Complex64 => 8,
            DType::Complex128 => 16,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::UInt8 => "uint8",
            DType::Int8 => "int8",
            DType::Int16 => "int16",
            DType::Int32 => "int32",
            DType::Int64 => "int64",
            DType::Float16 => "float16",
            DType::BFloat16 => "bfloat16",
            DType::Float32 => "float32",
            DType::Float64 => "float64",
            DType::Complex64 => "complex64",
            DType::Complex128 => "complex128",
        }
    }

    /// `torch.<name>` dtype attribute names.
    pub fn from_torch_name(name: &str) -> Option<DType> {
        Some(match name {
            "bool" => DType::Bool,
            "uint8" => DType::UInt8,
            "int8" => DType::Int8,
            "int16" | "short" => DType::Int16,
            "int32" | "int" => DType::Int32,
            "int64" | "long" => DType::Int64,
            "float16" | "half" => DType::Float16,
            "bfloat16" => DType::BFloat16,
            "float32" | "float" => DType::Float32,
            "float64" | "double" => DType::Float64,
            "complex64" | "cfloat" => DType::Complex64,
            "complex128" | "cdouble" => DType::Complex128,
            _ => return None,
        })
    }

    /// The dtype a conversion method such as `.bool()` or `.half()` produces.
    pub fn from_cast_method(method: &str) -> Option<DType> {
        Some(match method {
            "bool" => DType::Bool,
            "byte" => DType::UInt8,
            "char" => DType::Int8,
            "short" => DType::Int16,
            "int" => DType::Int32,
            "long" => DType::Int64,
            "half" => DType::Float16,
            "bfloat16" => DType::BFloat16,
            "float" => DType::Float32,
            "double" => DType::Float64,
            "cfloat" => DType::Complex64,
            "cdouble" => DType::Complex128,
            _ => return None,
        })
    }

    /// Legacy tensor type names accepted by `.type("torch.FloatTensor")`.
    pub fn from_tensor_type_name(name: &str) -> Option<DType> {
        let base = name.rsplit('.').next().unwrap_or(name);
        Some(match base {
            "BoolTensor" => DType::Bool,
            "ByteTensor" => DType::UInt8,
            "CharTensor" => DType::Int8,
            "ShortTensor" => DType::Int16,
            "IntTensor" => DType::Int32,
            "LongTensor" => DType::Int64,
            "HalfTensor" => DType::Float16,
            "BFloat16Tensor" => DType::BFloat16,
            "FloatTensor" => DType::Float32,
            "DoubleTensor" => DType::Float64,
            _ => return None,
        })
    }

    pub fn is_floating(self) -> bool {
        matches!(
            self,
            DType::Float16 | DType::BFloat16 | DType::Float32 | DType::Float64
        )
    }
}

/// A symbolic size expression built from the code's own arguments (`batch_size`, `self.num_heads`,
/// `bsz * num_heads`, `2048`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum SymExpr {
    Num(i64),
    /// A name or the last attribute of `self.x` / `config.x`; bound by `--dim NAME=VALUE`.
    Var(String),
    Mul(Box<SymExpr>, Box<SymExpr>),
    Add(Box<SymExpr>, Box<SymExpr>),
    Sub(Box<SymExpr>, Box<SymExpr>),
    FloorDiv(Box<SymExpr>, Box<SymExpr>),
    /// Any other expression, shown as written.
    Opaque(String),
}

impl SymExpr {
    /// The value with `dims` bound, when every name in it is bound.
    pub fn evaluate(&self, dims: &dyn Fn(&str) -> Option<i64>) -> Option<i64> {
        match self {
            SymExpr::Num(n) => Some(*n),
            SymExpr::Var(name) => dims(name),
            SymExpr::Opaque(text) => dims(text),
            SymExpr::Mul(a, b) => a.evaluate(dims)?.checked_mul(b.evaluate(dims)?),
            SymExpr::Add(a, b) => a.evaluate(dims)?.checked_add(b.evaluate(dims)?),
            SymExpr::Sub(a, b) => a.evaluate(dims)?.checked_sub(b.evaluate(dims)?),
            SymExpr::FloorDiv(a, b) => {
                let d = b.evaluate(dims)?;
                if d == 0 {
                    None
                } else {
                    Some(a.evaluate(dims)?.div_euclid(d))
                }
            }
        }
    }

    /// Substitutes names (a function's parameters) by the expressions a call site passes.
    pub fn substitute(&self, map: &dyn Fn(&str) -> Option<SymExpr>) -> SymExpr {
        match self {
            SymExpr::Var(name) => map(name).unwrap_or_else(|| self.clone()),
            SymExpr::Num(_) | SymExpr::Opaque(_) => self.clone(),
            SymExpr::Mul(a, b) => {
                SymExpr::Mul(Box::new(a.substitute(map)), Box::new(b.substitute(map)))
            }
            SymExpr::Add(a, b) => {
                SymExpr::Add(Box::new(a.substitute(map)), Box::new(b.substitute(map)))
            }
            SymExpr::Sub(a, b) => {
                SymExpr::Sub(Box::new(a.substitute(map)), Box::new(b.substitute(map)))
            }
            SymExpr::FloorDiv(a, b) => {
                SymExpr::FloorDiv(Box::new(a.substitute(map)), Box::new(b.substitute(map)))
            }
        }
    }

    fn precedence(&self) -> u8 {
        match self {
            SymExpr::Add(..) | SymExpr::Sub(..) => 1,
            SymExpr::Mul(..) | SymExpr::FloorDiv(..) => 2,
            _ => 3,
        }
    }

    fn fmt_operand(&self, f: &mut fmt::Formatter<'_>, min: u8) -> fmt::Result {
        if self.precedence() < min {
            write!(f, "({self})")
        } else {
            write!(f, "{self}")
        }
    }
}

impl fmt::Display for SymExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SymExpr::Num(n) => write!(f, "{n}"),
            SymExpr::Var(name) | SymExpr::Opaque(name) => f.write_str(name),
            SymExpr::Mul(a, b) => {
                a.fmt_operand(f, 2)?;
                f.write_str("*")?;
                b.fmt_operand(f, 3)
            }
            SymExpr::FloorDiv(a, b) => {
                a.fmt_operand(f, 2)?;
                f.write_str("//")?;
                b.fmt_operand(f, 3)
            }
            SymExpr::Add(a, b) => {
                a.fmt_operand(f, 1)?;
                f.write_str(" + ")?;
                b.fmt_operand(f, 2)
            }
            SymExpr::Sub(a, b) => {
                a.fmt_operand(f, 1)?;
                f.write_str(" - ")?;
                b.fmt_operand(f, 2)
            }
        }
    }
}

/// One dimension of a symbolic shape.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Dim {
    Size(SymExpr),
    /// Kept from the source tensor (`-1` in `expand`) whose size is not known here.
    Unknown,
}

impl Dim {
    pub fn is_one(&self) -> bool {
        matches!(self, Dim::Size(SymExpr::Num(1)))
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Size(expr) => write!(f, "{expr}"),
            Dim::Unknown => f.write_str("*"),
        }
    }
}

/// A shape whose rank is known.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Shape(pub Vec<Dim>);

impl Shape {
    pub fn rank(&self) -> usize {
        self.0.len()
    }

    /// The shape an elementwise op of two tensors of these shapes gives (torch's broadcasting,
    /// dims aligned from the right): a 1 or a missing dim takes the other's; an unknown dim next
    /// to a known one is that one (it must match it, or be 1); two unknowns, or two different
    /// sizes (one may be 1 at run time), stay unknown.
    pub fn broadcast(&self, other: &Shape) -> Shape {
        let rank = self.rank().max(other.rank());
        fn at(s: &Shape, i: usize, rank: usize) -> Option<&Dim> {
            (i + s.rank()).checked_sub(rank).map(|j| &s.0[j])
        }
        Shape(
            (0..rank)
                .map(|i| match (at(self, i, rank), at(other, i, rank)) {
                    (Some(a), None) => a.clone(),
                    (None, Some(b)) => b.clone(),
                    (Some(a), Some(b)) if b.is_one() => a.clone(),
                    (Some(a), Some(b)) if a.is_one() => b.clone(),
                    (Some(Dim::Unknown), Some(b)) => b.clone(),
                    (Some(a), Some(Dim::Unknown)) => a.clone(),
                    (Some(a), Some(b)) if a == b => a.clone(),
                    _ => Dim::Unknown,
                })
                .collect(),
        )
    }

    /// Number of elements with `dims` bound, when every dimension is known.
    pub fn numel(&self, dims: &dyn Fn(&str) -> Option<i64>) -> Option<u128> {
        let mut total: u128 = 1;
        for dim in &self.0 {
            match dim {
                Dim::Size(expr) => {
                    let v = expr.evaluate(dims)?;
                    total = total.checked_mul(u128::try_from(v).ok()?)?;
                }
                Dim::Unknown => return None,
            }
        }
        Some(total)
    }

    /// The shape with function parameters replaced by call-site arguments.
    pub fn substitute(&self, map: &dyn Fn(&str) -> Option<SymExpr>) -> Shape {
        Shape(
            self.0
                .iter()
                .map(|d| match d {
                    Dim::Size(e) => Dim::Size(e.substitute(map)),
                    Dim::Unknown => Dim::Unknown,
                })
                .collect(),
        )
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, dim) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{dim}")?;
        }
        f.write_str("]")
    }
}

/// How a value was enlarged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum EnlargeKind {
    /// A stride-0 broadcast view: free until something writes it out.
    View,
    /// A real copy (`repeat`, `tile`, ...): already large, and a conversion copies it again.
    Copy,
}

/// What a step of a chain did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StepRole {
    /// `expand`, `repeat`, ... made the value large.
    Enlarge,
    /// A view op kept it enlarged.
    View,
    /// A call returned an enlarged value made inside the callee.
    Call,
    /// The enlarged value is passed to a call as an argument (`code` says as which parameter of
    /// which function); the steps after it are in the callee.
    Argument,
    /// The operation that writes the full-size result.
    Sink,
}

/// A place in the source (in another file when `file` is set: interprocedural chains).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Step {
    pub role: StepRole,
    pub file: Option<Arc<str>>,
    pub range: TextRange,
    /// The code of the step as written, whitespace collapsed, e.g. `.expand(b, h, s, -1)`.
    pub code: String,
    /// For a method step: the expression the method is called on (fixes insert next to it).
    pub receiver: Option<TextRange>,
    /// The statement holding the step.
    pub stmt: TextRange,
}

/// A value that is larger than what it was made from.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Enlarged {
    pub kind: EnlargeKind,
    /// The enlarging op (`expand`, `repeat`, ...).
    pub op: String,
    /// Origin first, then each view step.
    pub steps: Vec<Step>,
    /// The shape after enlargement, when its rank is known.
    pub shape: Option<Shape>,
    /// The code the enlarger was called on (`attn_mask`, `mask[:, None, None, :]`).
    pub receiver_code: String,
    /// True when only some paths reach here enlarged (an `if` joined it).
    pub may: bool,
    /// For a copy: an id under which the analysis counts the copy's readers.
    pub copy_origin: Option<u32>,
    /// The sizes the chain's enlargements may grow, as their arguments spell them (repeat
    /// counts, expand sizes other than the source's own); `None` when an argument does not say.
    pub growth: Option<Vec<SymExpr>>,
    /// The names in `growth` bound to a tensor's leading size (`num_labels =
    /// unique_labels.shape[0]`, `n = len(boxes)`), with that size as written (`x.shape[0]`).
    pub leading_sizes: Vec<(String, String)>,
}

/// What kind of thing a value is, beyond tensors.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum ValueKind {
    #[default]
    Unknown,
    /// Clearly not a tensor: a module, a string, a numpy array.
    NotTensor,
    /// A `torch.dtype` value (the dtype itself when it is obvious).
    DTypeValue(Option<DType>),
    /// Probably a dtype, judged by its name only (a parameter called `dtype`).
    DTypeGuess,
    /// A device (`torch.device(...)`, `x.device`, `"cuda"`).
    DeviceValue,
    /// A Python number or a scalar constant such as `torch.finfo(t).min`.
    Scalar,
    /// A tensor.
    Tensor,
}

/// Where a tensor lives, as far as the code shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum Placement {
    /// A parameter, an attribute, a helper's result: could be anywhere.
    #[default]
    Unknown,
    /// Made on the host: a factory without `device=`, `torch.from_numpy`, `torch.tensor(list)`,
    /// `.cpu()`, or computed from such values only.
    Host,
    /// Placed where the code asked: made with a `device=` other than the CPU, moved there with
    /// `.to(device)`/`.cuda()`, or computed from a tensor that is.
    Device,
    /// For a list: it holds no tensor yet (`feats = []`), so the first one appended says where
    /// its tensors live.
    Nowhere,
}

impl Placement {
    /// Where the result of an operation on tensors in `self` and `other` lives: the same place,
    /// or the device when one operand is there (a host operand of such an op is a 0-d scalar).
    pub fn combine(self, other: Placement) -> Placement {
        match (self, other) {
            (a, b) if a == b => a,
            (Placement::Nowhere, p) | (p, Placement::Nowhere) => p,
            (Placement::Device, _) | (_, Placement::Device) => Placement::Device,
            _ => Placement::Unknown,
        }
    }

    /// A move from `self` to `target` is known to leave the data where it is.
    pub fn move_is_noop(self, target: Placement) -> bool {
        matches!(self, Placement::Host | Placement::Device) && self == target
    }

    /// A move from `self` to `target` copies the data to another memory.
    pub fn move_crosses(self, target: Placement) -> bool {
        match self {
            Placement::Host => target != Placement::Host,
            Placement::Device => target == Placement::Host,
            Placement::Unknown | Placement::Nowhere => false,
        }
    }
}

/// The ids of `a`, then those of `b` not in `a`.
fn union(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut ids = a.to_vec();
    for id in b {
        if !ids.contains(id) {
            ids.push(*id);
        }
    }
    ids
}

/// A site id: index into the analyzer's sink list.
pub type SiteId = u32;

/// Everything known about one value.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Fact {
    pub kind: ValueKind,
    pub dtype: Option<DType>,
    pub shape: Option<Shape>,
    pub enlarged: Option<Rc<Enlarged>>,
    /// Sinks whose result this value is (still the same memory): an in-place write to it
    /// means the materialization was needed.
    pub sink_results: Vec<SiteId>,
    /// A `repeat` result that could be an `expand` (OOM121 candidate).
    pub repeat_candidate: Option<u32>,
    /// The results of calls of helpers of the project that return such a `repeat` which this
    /// value may be: how this file reads it is recorded for each helper (indexes into the file's
    /// helper calls). A join keeps both sides' calls: a read on either path counts.
    pub helper_calls: Vec<u32>,
    /// For a value of unknown rank: dims known to be 1 (`x.unsqueeze(1)`), counted from the left
    /// (negative: from the right).
    pub unit_dims: Vec<i64>,
    /// For a tensor: where it lives. For a device value: the memory it names.
    pub placement: Placement,
    /// When the dtype is not known: a name for it, the same for values known to share it (`x`
    /// for a value made from `x`, or made with `dtype=x.dtype`). For a dtype value: the dtype it
    /// names.
    pub dtype_sym: Option<Rc<str>>,
    /// For a repeated copy reached only on some paths: sinks of that copy on whose paths this
    /// value is not the copy (`if flag: r = r.float()` then `use(r)`: on the path through the
    /// cast, `r` is its result). A read of the value does not count against those sinks.
    pub copy_bypass: Vec<SiteId>,
    /// For a count read off a tensor's leading size (`n = x.shape[0]`, `x.size(0)`, `len(x)`):
    /// that size as written, so that a count named for something else (`num_labels`) is still
    /// known to be a tensor's leading extent.
    pub leading_size_of: Option<Rc<str>>,
    /// For an integer read off a dim of known size (`t = probe.shape[1]` where `probe` is
    /// `[1, 1, hidden]`): that size, so that a count named `t` prices the dim it grows.
    pub int_value: Option<i64>,
    /// For a value on a device: the device expression it was placed with, when that is a name
    /// (`.to(self.device)`, `device=device`), so a later move to the same expression is known
    /// to be a no-op. For a list: the one every appended tensor was placed with.
    pub device_sym: Option<Rc<DeviceSym>>,
}

/// A device named by an expression of the function (`self.device`, a `device` parameter), and
/// where a value was placed with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceSym {
    /// The expression as written (a dotted name).
    pub device: Rc<str>,
    /// The offset in the file of the move or factory that placed the value there.
    pub at: u32,
}

impl Fact {
    /// The shape an elementwise op of two tensors gives, when both shapes are known.
    pub fn broadcast_shape(&self, other: &Fact) -> Option<Shape> {
        Some(self.shape.as_ref()?.broadcast(other.shape.as_ref()?))
    }

    pub fn unknown() -> Fact {
        Fact::default()
    }

    pub fn of_kind(kind: ValueKind) -> Fact {
        Fact {
            kind,
            ..Fact::default()
        }
    }

    pub fn tensor(dtype: Option<DType>, shape: Option<Shape>) -> Fact {
        Fact {
            kind: ValueKind::Tensor,
            dtype,
            shape,
            ..Fact::default()
        }
    }

    /// The join at a control-flow merge: what is true on both paths; enlargement on one path
    /// only becomes "may".
    /// The same fact with the dtype (or its name) of `other`.
    pub fn same_dtype_as(mut self, other: &Fact) -> Fact {
        self.dtype = other.dtype;
        self.dtype_sym = if other.dtype.is_none() {
            other.dtype_sym.clone()
        } else {
            None
        };
        self
    }

    /// The same fact, placed.
    pub fn placed(mut self, placement: Placement) -> Fact {
        self.placement = placement;
        self
    }

    /// The same fact, placed where `other` is (and with the same device expression).
    pub fn placed_like(mut self, other: &Fact) -> Fact {
        self.placement = other.placement;
        self.device_sym = other.device_sym.clone();
        self
    }

    pub fn join(&self, other: &Fact) -> Fact {
        if self == other {
            return self.clone();
        }
        let enlarged = match (&self.enlarged, &other.enlarged) {
            (Some(a), Some(b)) => {
                if a.may || !b.may || a == b {
                    Some(a.clone())
                } else {
                    Some(b.clone())
                }
            }
            (Some(e), None) | (None, Some(e)) => {
                if e.may {
                    Some(e.clone())
                } else {
                    let mut e = (**e).clone();
                    e.may = true;
                    Some(Rc::new(e))
                }
            }
            (None, None) => None,
        };
        Fact {
            kind: if self.kind == other.kind {
                self.kind.clone()
            } else {
                ValueKind::Unknown
            },
            dtype: if self.dtype == other.dtype {
                self.dtype
            } else {
                None
            },
            shape: if self.shape == other.shape {
                self.shape.clone()
            } else {
                None
            },
            enlarged,
            sink_results: union(&self.sink_results, &other.sink_results),
            // A repeat on one path only (`src = repeat(...)` or `src = embed`): a read of the
            // join reads the copy on that path. Two different repeats: neither is followed.
            repeat_candidate: match (self.repeat_candidate, other.repeat_candidate) {
                (Some(a), Some(b)) if a != b => None,
                (a, b) => a.or(b),
            },
            helper_calls: union(&self.helper_calls, &other.helper_calls),
            unit_dims: if self.unit_dims == other.unit_dims {
                self.unit_dims.clone()
            } else {
                Vec::new()
            },
            dtype_sym: match (&self.enlarged, &other.enlarged) {
                _ if self.dtype_sym == other.dtype_sym => self.dtype_sym.clone(),
                (Some(_), None) => self.dtype_sym.clone(),
                (None, Some(_)) => other.dtype_sym.clone(),
                _ => None,
            },
            // Each path adds the sinks it bypasses (joins outside loops only: see `stmt`).
            copy_bypass: union(&self.copy_bypass, &other.copy_bypass),
            leading_size_of: if self.leading_size_of == other.leading_size_of {
                self.leading_size_of.clone()
            } else {
                None
            },
            int_value: if self.int_value == other.int_value {
                self.int_value
            } else {
                None
            },
            // Where the enlarged value lives, when only one path enlarges it.
            placement: match (&self.enlarged, &other.enlarged) {
                _ if self.placement == other.placement => self.placement,
                // A list empty on one path: where the other path's tensors live.
                _ if self.placement == Placement::Nowhere => other.placement,
                _ if other.placement == Placement::Nowhere => self.placement,
                (Some(_), None) => self.placement,
                (None, Some(_)) => other.placement,
                _ => Placement::Unknown,
            },
            device_sym: match () {
                _ if self.device_sym == other.device_sym => self.device_sym.clone(),
                _ if self.placement == Placement::Nowhere => other.device_sym.clone(),
                _ if other.placement == Placement::Nowhere => self.device_sym.clone(),
                _ => None,
            },
        }
    }

    pub fn is_not_tensor(&self) -> bool {
        matches!(
            self.kind,
            ValueKind::NotTensor
                | ValueKind::DTypeValue(_)
                | ValueKind::DeviceValue
                | ValueKind::Scalar
        )
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn broadcast_aligns_from_the_right() {
        use super::{Dim, Shape, SymExpr};
        let n = || Dim::Size(SymExpr::Var("n".into()));
        let one = || Dim::Size(SymExpr::Num(1));
        let shape = |d: Vec<Dim>| Shape(d);
        // `x[:, None] * x[None, :]`: [*, 1] and [1, *] give [*, *]; [n, 1] and [1, n] give [n, n].
        let (col, row) = (
            shape(vec![Dim::Unknown, one()]),
            shape(vec![one(), Dim::Unknown]),
        );
        assert_eq!(col.broadcast(&row), shape(vec![Dim::Unknown, Dim::Unknown]));
        let (col, row) = (shape(vec![n(), one()]), shape(vec![one(), n()]));
        assert_eq!(col.broadcast(&row), shape(vec![n(), n()]));
        // A missing leading dim takes the other's; an unknown next to a size is that size.
        let a = shape(vec![Dim::Unknown, n()]);
        let b = shape(vec![n()]);
        assert_eq!(b.broadcast(&a), a);
        assert_eq!(shape(vec![Dim::Unknown]).broadcast(&b), b);
        // Two different sizes: either may be 1 at run time.
        let m = shape(vec![Dim::Size(SymExpr::Var("m".into()))]);
        assert_eq!(m.broadcast(&b), shape(vec![Dim::Unknown]));
    }

    use super::*;

    #[test]
    fn placement_of_operations_and_moves() {
        use Placement::{Device, Host, Unknown};
        // (a, b, where a op b lives)
        let combine = [
            (Host, Host, Host),
            (Device, Device, Device),
            (Host, Device, Device),
            (Unknown, Device, Device),
            (Host, Unknown, Unknown),
            (Unknown, Unknown, Unknown),
        ];
        for (a, b, want) in combine {
            assert_eq!(a.combine(b), want, "{a:?} with {b:?}");
            assert_eq!(b.combine(a), want, "{b:?} with {a:?}");
        }
        // (source, target, copies across)
        let moves = [
            (Host, Device, true),
            (Host, Unknown, true),
            (Host, Host, false),
            (Device, Host, true),
            (Device, Device, false),
            (Device, Unknown, false),
            (Unknown, Device, false),
            (Unknown, Host, false),
        ];
        for (from, to, want) in moves {
            assert_eq!(from.move_crosses(to), want, "{from:?} -> {to:?}");
        }
        // An empty list takes the place of the tensors appended to it.
        use Placement::Nowhere;
        for p in [Host, Device, Unknown] {
            assert_eq!(Nowhere.combine(p), p);
            assert_eq!(p.combine(Nowhere), p);
        }
        // Known to stay put: only a known place moved to itself.
        let noops = [
            (Host, Host, true),
            (Device, Device, true),
            (Host, Device, false),
            (Unknown, Unknown, false),
            (Unknown, Device, false),
            (Nowhere, Nowhere, false),
        ];
        for (from, to, want) in noops {
            assert_eq!(from.move_is_noop(to), want, "{from:?} -> {to:?}");
        }
    }

    #[test]
    fn join_keeps_a_device_expression_both_paths_share() {
        let on = |device: &str| Fact {
            device_sym: Some(Rc::new(DeviceSym {
                device: device.into(),
                at: 0,
            })),
            ..Fact::tensor(None, None)
        };
        assert_eq!(on("d").join(&on("d")).device_sym, on("d").device_sym);
        assert_eq!(on("d").join(&on("e")).device_sym, None);
        assert_eq!(on("d").join(&Fact::tensor(None, None)).device_sym, None);
        let empty_list = Fact::of_kind(ValueKind::NotTensor).placed(Placement::Nowhere);
        assert_eq!(empty_list.join(&on("d")).device_sym, on("d").device_sym);
    }

    #[test]
    fn join_keeps_the_enlarged_path_placement() {
        let enlarged = Rc::new(Enlarged {
            kind: EnlargeKind::View,
            op: "expand".into(),
            steps: Vec::new(),
            shape: None,
            receiver_code: "m".into(),
            may: false,
            copy_origin: None,
            growth: None,
            leading_sizes: Vec::new(),
        });
        let on_host = Fact {
            enlarged: Some(enlarged),
            ..Fact::tensor(None, None).placed(Placement::Host)
        };
        let other = Fact::unknown();
        assert_eq!(on_host.join(&other).placement, Placement::Host);
        assert_eq!(other.join(&on_host).placement, Placement::Host);
        let plain = Fact::tensor(None, None).placed(Placement::Host);
        assert_eq!(plain.join(&other).placement, Placement::Unknown);
    }
}
