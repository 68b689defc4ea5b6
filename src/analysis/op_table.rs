//! What torch says an op does: its kind (pointwise, view, reduction, ...) and the dtype class of its
//! result, for every public name of `torch`, `torch.Tensor`, `torch.nn.functional`,
//! `torch.special`, `torch.linalg` and the `torch.nn` modules (by the functional form their
//! `forward` calls). The facts come from a table generated from a pinned torch wheel by
//! `scripts/gen_torch_ops.py` (`torch_ops.tsv`); it is parsed once, on first use.

use std::sync::LazyLock;

use rustc_hash::FxHashMap;

use super::facts::DType;

/// Where a name lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Namespace {
    Torch,
    Tensor,
    Functional,
    Special,
    Linalg,
    /// `torch.nn` module classes.
    Nn,
}

impl Namespace {
    /// The namespace of a dotted module path (`F` resolved to `torch.nn.functional`).
    pub fn of_module(path: &str) -> Option<Namespace> {
        Some(match path {
            "torch" => Namespace::Torch,
            "torch.nn.functional" => Namespace::Functional,
            "torch.special" => Namespace::Special,
            "torch.linalg" => Namespace::Linalg,
            "torch.nn" | "nn" => Namespace::Nn,
            _ => return None,
        })
    }

    fn parse(s: &str) -> Option<Namespace> {
        match s {
            "Tensor" => Some(Namespace::Tensor),
            _ => Namespace::of_module(s),
        }
    }
}

/// What an op does to the shape and layout of its input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpKind {
    /// One tensor in, each element computed from its own (`cos`, `exp`, `sigmoid`, `F.softplus`).
    PointwiseUnary,
    /// Elementwise with other operands (`add`, `eq`, `clamp` with tensor bounds, `masked_fill`).
    PointwiseBinary,
    /// A view of its input (`view`, `permute`, `expand`).
    View,
    Reduction,
    /// A dense copy (`contiguous`, `clone`, casts, device moves).
    Copy,
    /// The input's shape, each element computed along a dim (`softmax`, `cumsum`, `F.normalize`,
    /// `layer_norm`).
    ShapePreserving,
    /// A new spatial size (`F.interpolate`, `F.fold`, `F.pad`).
    Resampling,
    /// Data-dependent shape (`nonzero`, `masked_select`).
    Indexing,
    /// Built from sizes or data (`zeros`, `arange`, `tensor`).
    Factory,
    /// Reads its operands as matrices (`matmul`, `F.linear`, convolutions).
    Contraction,
    /// Writes its receiver (`add_`).
    InPlace,
    /// Known to torch, none of the kinds above.
    Other,
    /// Public, but nothing says what it does.
    Unknown,
}

impl OpKind {
    fn parse(s: &str) -> Option<OpKind> {
        Some(match s {
            "pointwise_unary" => OpKind::PointwiseUnary,
            "pointwise_binary" => OpKind::PointwiseBinary,
            "view" => OpKind::View,
            "reduction" => OpKind::Reduction,
            "copy" => OpKind::Copy,
            "shape_preserving" => OpKind::ShapePreserving,
            "resampling" => OpKind::Resampling,
            "indexing" => OpKind::Indexing,
            "factory" => OpKind::Factory,
            "contraction" => OpKind::Contraction,
            "in_place" => OpKind::InPlace,
            "other" => OpKind::Other,
            "unknown" => OpKind::Unknown,
            _ => return None,
        })
    }
}

/// The dtype class of an op's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultDtype {
    /// The input's dtype.
    Same,
    /// Type promotion of the operands.
    Promoted,
    Bool,
    /// int64 indices (`argsort`, `nonzero`).
    Int64,
    /// A float input keeps its dtype; an integer one gives the default float (`exp`, `true_divide`).
    Float,
    /// Given by an argument (`dtype=`, `.to(...)`).
    Arg,
    Unknown,
}

impl ResultDtype {
    fn parse(s: &str) -> Option<ResultDtype> {
        Some(match s {
            "same" => ResultDtype::Same,
            "promoted" => ResultDtype::Promoted,
            "bool" => ResultDtype::Bool,
            "int64" => ResultDtype::Int64,
            "float" => ResultDtype::Float,
            "arg" => ResultDtype::Arg,
            "unknown" => ResultDtype::Unknown,
            _ => return None,
        })
    }

    /// The result's dtype for an input of dtype `input` (when the class says it).
    pub fn of_input(self, input: Option<DType>) -> Option<DType> {
        match self {
            ResultDtype::Same => input,
            ResultDtype::Bool => Some(DType::Bool),
            ResultDtype::Int64 => Some(DType::Int64),
            ResultDtype::Float => match input {
                Some(d) if d.is_floating() => Some(d),
                Some(_) => Some(DType::Float32),
                None => None,
            },
            ResultDtype::Promoted | ResultDtype::Arg | ResultDtype::Unknown => None,
        }
    }
}

/// One row of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpInfo {
    pub kind: OpKind,
    pub dtype: ResultDtype,
    /// For a `torch.nn` module: the `F.*` function its `forward` calls.
    pub functional: Option<&'static str>,
    /// Where `dim` sits among the positional arguments, the tensor input at 0 (`x.softmax(-1)`:
    /// 1, so the method's first argument).
    pub dim_at: Option<u8>,
}

impl OpInfo {
    /// A pointwise op with tensor operands (`hypot`, `torch.where`, `masked_fill`, `lerp`): each
    /// operand broadcasts against the others, an expanded one as well as a copy. In-place
    /// variants have their own kind in the table and never count.
    pub fn broadcasts_operands(&self) -> bool {
        self.kind == OpKind::PointwiseBinary
    }
}

static TABLE: &str = include_str!("torch_ops.tsv");

/// Name -> its rows, one per namespace that has it (a name is in few namespaces).
type Ops = FxHashMap<&'static str, Vec<(Namespace, OpInfo)>>;

static OPS: LazyLock<Ops> = LazyLock::new(|| {
    let mut map: Ops = FxHashMap::default();
    for line in TABLE.lines() {
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let mut cols = line.split('\t');
        let (Some(ns), Some(name), Some(kind), Some(dtype)) = (
            cols.next().and_then(Namespace::parse),
            cols.next(),
            cols.next().and_then(OpKind::parse),
            cols.next().and_then(ResultDtype::parse),
        ) else {
            continue;
        };
        let functional = cols
            .next()
            .and_then(|f| f.strip_prefix("F."))
            .filter(|f| !f.is_empty());
        let dim_at = cols.next().and_then(|d| d.parse().ok());
        map.entry(name).or_default().push((
            ns,
            OpInfo {
                kind,
                dtype,
                functional,
                dim_at,
            },
        ));
    }
    map
});

/// What the table says of `name` in `ns`.
pub fn lookup(ns: Namespace, name: &str) -> Option<&'static OpInfo> {
    OPS.get(name)?
        .iter()
        .find(|(n, _)| *n == ns)
        .map(|(_, op)| op)
}

/// Does torch name anything `name` (a function, a tensor method, a module class), in any
/// namespace of the table?
pub fn names_anything(name: &str) -> bool {
    OPS.contains_key(name)
}

/// A function called by its module path (`torch.cos`, `F.softplus`).
pub fn function(module: &str, name: &str) -> Option<&'static OpInfo> {
    lookup(Namespace::of_module(module)?, name)
}

/// A tensor method (`x.cos()`).
pub fn method(name: &str) -> Option<&'static OpInfo> {
    lookup(Namespace::Tensor, name)
}

/// A `torch.nn` module class (`nn.Linear`) as its functional form's row.
pub fn module_class(name: &str) -> Option<&'static OpInfo> {
    lookup(Namespace::Nn, name)
}

/// Shape-preserving ops that torch documents on "a matrix or a batch of matrices": each result
/// element is computed along the last two dims only (`tril`, `triu` keep or zero an element by
/// its row and column), the leading dims are batch dims.
const MATRIX_OPS: &[&str] = &["tril", "triu"];

/// Does `name` act on the last two dims as a batch of matrices (see [`MATRIX_OPS`])?
pub fn acts_on_matrices(name: &str) -> bool {
    MATRIX_OPS.contains(&name)
}

/// The dtype of a method's or function's result from its class alone (bool, int64): what a
/// later `.bool()` / `.long()` makes a no-op.
pub fn fixed_result_dtype(op: Option<&OpInfo>) -> Option<DType> {
    match op?.dtype {
        ResultDtype::Bool => Some(DType::Bool),
        ResultDtype::Int64 => Some(DType::Int64),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_parses_and_every_name_is_classified() {
        // Every data row names a namespace, a kind and a dtype class the analysis knows (an
        // `unknown` is explicit): a row the parser skipped would be a name silently unclassified.
        let rows = TABLE
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .count();
        let parsed: usize = OPS.values().map(Vec::len).sum();
        assert_eq!(rows, parsed, "a row of torch_ops.tsv did not parse");
        assert!(rows > 1500, "the table lost most of torch: {rows} rows");
        assert!(TABLE.starts_with("# Generated by scripts/gen_torch_ops.py from torch "));
        for ns in [
            Namespace::Torch,
            Namespace::Tensor,
            Namespace::Functional,
            Namespace::Special,
            Namespace::Linalg,
            Namespace::Nn,
        ] {
            assert!(
                OPS.values().flatten().any(|(n, _)| *n == ns),
                "{ns:?} has no rows"
            );
        }
    }

    #[test]
    fn known_names() {
        use OpKind::*;
        let cases: &[(Namespace, &str, OpKind, ResultDtype)] = &[
            (Namespace::Torch, "cos", PointwiseUnary, ResultDtype::Float),
            (Namespace::Tensor, "abs", PointwiseUnary, ResultDtype::Same),
            (Namespace::Torch, "isin", ShapePreserving, ResultDtype::Bool),
            (Namespace::Torch, "eq", PointwiseBinary, ResultDtype::Bool),
            (Namespace::Tensor, "lt", PointwiseBinary, ResultDtype::Bool),
            (
                Namespace::Torch,
                "argsort",
                ShapePreserving,
                ResultDtype::Int64,
            ),
            (Namespace::Torch, "nonzero", Indexing, ResultDtype::Int64),
            (
                Namespace::Functional,
                "softmax",
                ShapePreserving,
                ResultDtype::Same,
            ),
            (
                Namespace::Functional,
                "normalize",
                ShapePreserving,
                ResultDtype::Same,
            ),
            (
                Namespace::Functional,
                "softplus",
                PointwiseUnary,
                ResultDtype::Same,
            ),
            (
                Namespace::Functional,
                "interpolate",
                Resampling,
                ResultDtype::Same,
            ),
            (Namespace::Functional, "fold", Resampling, ResultDtype::Same),
            (Namespace::Tensor, "expand", View, ResultDtype::Same),
            (Namespace::Tensor, "permute", View, ResultDtype::Same),
            (Namespace::Torch, "sum", Reduction, ResultDtype::Same),
            (Namespace::Torch, "arange", Factory, ResultDtype::Arg),
            (
                Namespace::Torch,
                "true_divide",
                PointwiseBinary,
                ResultDtype::Float,
            ),
            (Namespace::Tensor, "add_", InPlace, ResultDtype::Same),
        ];
        for (ns, name, kind, dtype) in cases {
            let op = lookup(*ns, name).unwrap_or_else(|| panic!("{ns:?}.{name} missing"));
            assert_eq!((op.kind, op.dtype), (*kind, *dtype), "{ns:?}.{name}");
        }
    }

    #[test]
    fn modules_act_as_their_functional_form() {
        let cases: &[(&str, OpKind, &str)] = &[
            ("Linear", OpKind::Contraction, "linear"),
            ("Conv2d", OpKind::Contraction, "conv2d"),
            ("GELU", OpKind::PointwiseUnary, "gelu"),
            ("LayerNorm", OpKind::ShapePreserving, "layer_norm"),
        ];
        for (name, kind, functional) in cases {
            let op = module_class(name).unwrap_or_else(|| panic!("nn.{name} missing"));
            assert_eq!(
                (op.kind, op.functional),
                (*kind, Some(*functional)),
                "{name}"
            );
        }
        // Random per element: not a reorderable op.
        assert_eq!(module_class("Dropout").map(|o| o.kind), Some(OpKind::Other));
    }

    #[test]
    fn result_dtypes() {
        let f = |d: ResultDtype, i: Option<DType>| d.of_input(i);
        assert_eq!(
            f(ResultDtype::Float, Some(DType::Int64)),
            Some(DType::Float32)
        );
        assert_eq!(
            f(ResultDtype::Float, Some(DType::Float16)),
            Some(DType::Float16)
        );
        assert_eq!(f(ResultDtype::Same, Some(DType::Int32)), Some(DType::Int32));
        assert_eq!(f(ResultDtype::Bool, None), Some(DType::Bool));
        assert_eq!(f(ResultDtype::Promoted, Some(DType::Int32)), None);
    }
}
