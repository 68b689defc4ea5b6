//! Dtypes told from the syntax alone: number literals, Python-scalar promotion in arithmetic, what
//! a parameter annotation says, and what an argument of `.to(...)` is. Pure functions of the AST
//! (and of the facts already known about an argument), so they are unit-tested here.

use crate::source::ast::{self, BoolOp, CmpOp, Expr, Number, Operator, UnaryOp};

use super::facts::{DType, Fact, ValueKind};
use super::torch_api::FLOAT_CONSTANT_ATTRIBUTES;

/// `3`, `-2.5`: a plain number (a module-level constant such as `SCALE = 0.5` is a scalar).
pub(super) fn is_number_literal(expr: &Expr) -> bool {
    match expr {
        Expr::NumberLiteral(_) => true,
        Expr::UnaryOp(u) => {
            matches!(u.op, UnaryOp::USub | UnaryOp::UAdd) && is_number_literal(&u.operand)
        }
        _ => false,
    }
}

/// A Python float: a float literal, `float(...)`, or a float constant such as `finfo(t).min`
/// (an integer tensor combined with it promotes to float32).
pub(super) fn is_float_scalar(expr: &Expr) -> bool {
    match expr {
        Expr::NumberLiteral(n) => matches!(n.value, Number::Float(_)),
        Expr::UnaryOp(u) => is_float_scalar(&u.operand),
        Expr::Call(c) => matches!(&*c.func, Expr::Name(n) if n.id.as_str() == "float"),
        Expr::Attribute(a) => FLOAT_CONSTANT_ATTRIBUTES.contains(&a.attr.id.as_str()),
        _ => false,
    }
}

/// Either operand of `a <op> b` is a Python float.
pub(super) fn scalar_is_float(b: &ast::ExprBinOp) -> bool {
    is_float_scalar(&b.left) || is_float_scalar(&b.right)
}

/// The dtype of `tensor <op> python_scalar`: a float tensor keeps its dtype, `bool & bool` stays
/// bool, true division or a float scalar gives float32 (the default dtype), anything else keeps
/// the tensor's dtype.
pub(super) fn arithmetic_dtype(
    tensor: Option<DType>,
    op: Operator,
    float_scalar: bool,
) -> Option<DType> {
    match tensor {
        Some(d) if d.is_floating() => Some(d),
        Some(DType::Bool)
            if matches!(op, Operator::BitAnd | Operator::BitOr | Operator::BitXor) =>
        {
            Some(DType::Bool)
        }
        _ if op == Operator::Div || float_scalar => Some(DType::Float32),
        other => other,
    }
}

/// The fact an annotation gives a parameter.
pub(super) fn annotation_fact(annotation: &Expr) -> Fact {
    let text = match annotation {
        Expr::Attribute(a) => a.attr.id.to_string(),
        Expr::Name(n) => n.id.to_string(),
        Expr::StringLiteral(s) => s
            .value
            .to_str()
            .rsplit('.')
            .next()
            .unwrap_or("")
            .to_string(),
        _ => return Fact::unknown(),
    };
    match text.as_str() {
        "dtype" => Fact::of_kind(ValueKind::DTypeValue(None)),
        "device" => Fact::of_kind(ValueKind::DeviceValue),
        "int" | "float" => Fact::of_kind(ValueKind::Scalar),
        "str" | "bool" | "list" | "tuple" | "dict" => Fact::of_kind(ValueKind::NotTensor),
        "Tensor" | "FloatTensor" | "LongTensor" | "BoolTensor" => Fact::tensor(
            match text.as_str() {
                "FloatTensor" => Some(DType::Float32),
                "LongTensor" => Some(DType::Int64),
                "BoolTensor" => Some(DType::Bool),
                _ => None,
            },
            None,
        ),
        _ => Fact::unknown(),
    }
}

/// What one positional argument of `.to(...)` is.
pub(super) enum ToArg {
    /// A dtype; the flag says whether that is certain (not just judged by a name).
    Dtype(Option<DType>, bool),
    Device,
    Tensor,
    Ignore,
}

/// What a positional argument of `.to(...)` is.
pub(super) fn classify_to_arg(arg: &Expr, fact: &Fact) -> ToArg {
    match &fact.kind {
        ValueKind::DTypeValue(d) => return ToArg::Dtype(*d, true),
        ValueKind::DTypeGuess => return ToArg::Dtype(None, false),
        ValueKind::DeviceValue => return ToArg::Device,
        _ => {}
    }
    match arg {
        Expr::StringLiteral(_) | Expr::NumberLiteral(_) => return ToArg::Device,
        Expr::BooleanLiteral(_) | Expr::NoneLiteral(_) => return ToArg::Ignore,
        Expr::Attribute(a) if a.attr.id.as_str() == "dtype" => return ToArg::Dtype(None, true),
        _ => {}
    }
    let last = match arg {
        Expr::Name(n) => n.id.as_str(),
        Expr::Attribute(a) => a.attr.id.as_str(),
        _ => "",
    };
    if last == "dtype" || last.ends_with("_dtype") || last.ends_with("dtype") {
        ToArg::Dtype(None, false)
    } else if last.contains("device") {
        ToArg::Device
    } else {
        ToArg::Tensor
    }
}

/// The dtype an expression names (`torch.float16`, `th.bfloat16`); `module_path` resolves the
/// module part through the file's imports.
pub(super) fn dtype_of_expr(
    expr: &Expr,
    module_path: impl Fn(&Expr) -> Option<String>,
) -> Option<DType> {
    match expr {
        Expr::Attribute(a) => {
            let path = module_path(&a.value)?;
            if crate::analysis::torch_api::is_torch_module(&path) {
                DType::from_torch_name(a.attr.id.as_str())
            } else {
                None
            }
        }
        _ => None,
    }
}

/// The dtypes a branch test proves on each of its two paths: the tensor whose `.dtype` is tested
/// (the receiver expression) and the dtype it has there.
#[derive(Debug, Default, PartialEq)]
pub(super) struct DtypeGuard<'e> {
    pub(super) when_true: Vec<(&'e Expr, DType)>,
    pub(super) when_false: Vec<(&'e Expr, DType)>,
}

/// What a branch test says about dtypes: `x.dtype == torch.bool` (or `is`, either side) holds on
/// its true path, `x.dtype != torch.bool` (or `is not`) on its false path; `and` proves all its
/// operands' true facts on the true path, `or` all their false facts on the false path, and `not`
/// swaps the paths. Anything else proves nothing (a membership test, a chained comparison).
pub(super) fn dtype_guard<'e>(
    test: &'e Expr,
    module_path: &dyn Fn(&Expr) -> Option<String>,
) -> DtypeGuard<'e> {
    match test {
        Expr::UnaryOp(u) if u.op == UnaryOp::Not => {
            let inner = dtype_guard(&u.operand, module_path);
            DtypeGuard {
                when_true: inner.when_false,
                when_false: inner.when_true,
            }
        }
        Expr::BoolOp(b) => {
            let mut guard = DtypeGuard::default();
            for value in &b.values {
                let inner = dtype_guard(value, module_path);
                match b.op {
                    BoolOp::And => guard.when_true.extend(inner.when_true),
                    BoolOp::Or => guard.when_false.extend(inner.when_false),
                }
            }
            guard
        }
        Expr::Compare(c) if c.ops.len() == 1 && c.comparators.len() == 1 => {
            let tested = |side: &'e Expr, other: &'e Expr| match side {
                Expr::Attribute(a) if a.attr.id.as_str() == "dtype" => {
                    dtype_of_expr(other, module_path).map(|d| (&*a.value, d))
                }
                _ => None,
            };
            let (left, right) = (&*c.left, &c.comparators[0]);
            let Some(fact) = tested(left, right).or_else(|| tested(right, left)) else {
                return DtypeGuard::default();
            };
            match c.ops[0] {
                CmpOp::Eq | CmpOp::Is => DtypeGuard {
                    when_true: vec![fact],
                    when_false: Vec::new(),
                },
                CmpOp::NotEq | CmpOp::IsNot => DtypeGuard {
                    when_true: Vec::new(),
                    when_false: vec![fact],
                },
                _ => DtypeGuard::default(),
            }
        }
        _ => DtypeGuard::default(),
    }
}

/// Names that hold a Python number by convention: a probability, an epsilon, an offset or scale
/// factor, a threshold, a fill value, a token id (`self.p`, `eps`, `self.offset`, `pad_token_id`).
/// A tensor parameter named like this (`self.scale = nn.Parameter(torch.ones(dim))`) has no batch
/// or sequence dims, so the op can still be applied before the enlargement.
fn scalar_like_name(name: &str) -> bool {
    let name = name.trim_start_matches('_').to_ascii_lowercase();
    const EXACT: &[&str] = &[
        "p",
        "eps",
        "epsilon",
        "offset",
        "scale",
        "scaling",
        "temperature",
        "temp",
        "tau",
        "alpha",
        "beta",
        "margin",
        "threshold",
        "thresh",
        "prob",
        "probability",
        "rate",
        "factor",
        "fill_value",
        "mask_value",
        "pad_value",
        "min_value",
        "max_value",
        "min_val",
        "max_val",
        "neg_inf",
        "ignore_index",
        "padding_idx",
    ];
    const SUFFIXES: &[&str] = &[
        "_p",
        "_eps",
        "_prob",
        "_rate",
        "_factor",
        "_offset",
        "_scale",
        "_scaling",
        "_threshold",
        "_thresh",
        "_value",
        "_temperature",
        "_token_id",
    ];
    EXACT.contains(&name.as_str()) || SUFFIXES.iter().any(|s| name.ends_with(s))
}

/// An expression that is a Python number by its spelling, not by a literal: a conventionally
/// scalar name or attribute (`self.p`, `scale`, `self.config.layer_norm_eps`), a call of a helper
/// named for a dtype's limit (`min_value_of_dtype(x.dtype)`), a 0-d tensor built from a number
/// (`torch.tensor(0.0)`, `torch.zeros(())`), or arithmetic of those with literals. Whether the
/// value's facts allow it (nothing says it is a tensor) is the caller's check.
pub(super) fn scalar_like_expr(expr: &Expr) -> bool {
    match expr {
        Expr::NumberLiteral(_) | Expr::BooleanLiteral(_) => true,
        Expr::Name(n) => scalar_like_name(n.id.as_str()),
        Expr::Attribute(a) => scalar_like_name(a.attr.id.as_str()),
        Expr::UnaryOp(u) => {
            matches!(u.op, UnaryOp::USub | UnaryOp::UAdd) && scalar_like_expr(&u.operand)
        }
        Expr::BinOp(b) => {
            b.op != ast::Operator::MatMult
                && scalar_like_expr(&b.left)
                && scalar_like_expr(&b.right)
        }
        Expr::Call(c) => {
            let callee = match &*c.func {
                Expr::Name(n) => n.id.as_str(),
                Expr::Attribute(a) => a.attr.id.as_str(),
                _ => return false,
            };
            callee.ends_with("_of_dtype") || zero_dim_tensor(c)
        }
        _ => false,
    }
}

/// `torch.tensor(0.0)`, `torch.tensor(-1)`, `torch.zeros(())`, `torch.ones([])`,
/// `torch.full((), v)`, `torch.scalar_tensor(v)`: a 0-d tensor, which broadcasts like a number.
pub(super) fn zero_dim_tensor(call: &ast::ExprCall) -> bool {
    let Expr::Attribute(a) = &*call.func else {
        return false;
    };
    if !matches!(&*a.value, Expr::Name(n) if n.id.as_str() == "torch") {
        return false;
    }
    let args = &call.arguments.args;
    let empty = |e: &Expr| match e {
        Expr::Tuple(t) => t.elts.is_empty(),
        Expr::List(l) => l.elts.is_empty(),
        _ => false,
    };
    match a.attr.id.as_str() {
        "tensor" | "as_tensor" => args.first().is_some_and(|v| {
            is_number_literal(v) || matches!(v, Expr::BooleanLiteral(_)) || is_float_scalar(v)
        }),
        "scalar_tensor" => !args.is_empty(),
        "zeros" | "ones" | "empty" => args.len() == 1 && empty(&args[0]),
        "full" => args.first().is_some_and(empty),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    //! Table-driven: each case is a line of Python parsed with the crate's own parser.

    use super::*;
    use crate::source::parse_module;

    fn with_expr<R>(code: &str, f: impl FnOnce(&Expr) -> R) -> R {
        let parsed = parse_module(code, false);
        assert!(parsed.syntax_errors.is_empty(), "bad test input: {code}");
        match parsed.body.as_slice() {
            [ast::Stmt::Expr(e)] => f(&e.value),
            _ => panic!("not one expression: {code}"),
        }
    }

    /// Resolves only `torch` (as a file that does `import torch` would).
    fn torch_only(expr: &Expr) -> Option<String> {
        match expr {
            Expr::Name(n) if n.id.as_str() == "torch" => Some("torch".to_string()),
            Expr::Name(n) if n.id.as_str() == "np" => Some("numpy".to_string()),
            _ => None,
        }
    }

    /// What the walk knows about an argument before classifying it: a `torch.<dtype>` is a dtype
    /// value; anything else is unknown here.
    fn arg_fact(arg: &Expr) -> Fact {
        match dtype_of_expr(arg, torch_only) {
            Some(d) => Fact::of_kind(ValueKind::DTypeValue(Some(d))),
            None => Fact::unknown(),
        }
    }

    fn show_to_arg(arg: ToArg) -> String {
        match arg {
            ToArg::Dtype(d, sure) => format!(
                "dtype {} {}",
                d.map_or("?", DType::name),
                if sure { "sure" } else { "guess" }
            ),
            ToArg::Device => "device".to_string(),
            ToArg::Tensor => "tensor".to_string(),
            ToArg::Ignore => "ignore".to_string(),
        }
    }

    #[test]
    fn to_arguments() {
        let cases: &[(&str, &[&str])] = &[
            ("x.to(torch.float16)", &["dtype float16 sure"]),
            ("x.to(torch.half)", &["dtype float16 sure"]),
            ("x.to(device)", &["device"]),
            ("x.to(self.device)", &["device"]),
            ("x.to(x.dtype)", &["dtype ? sure"]),
            ("x.to(dtype)", &["dtype ? guess"]),
            ("x.to(self.compute_dtype)", &["dtype ? guess"]),
            (
                "x.to(\"cuda\", torch.bfloat16)",
                &["device", "dtype bfloat16 sure"],
            ),
            ("x.to(0)", &["device"]),
            ("x.to(other)", &["tensor"]),
            ("x.to(np.float16)", &["tensor"]),
            (
                "x.to(x.device, None, True)",
                &["device", "ignore", "ignore"],
            ),
        ];
        for (code, want) in cases {
            let got: Vec<String> = with_expr(code, |expr| {
                let Expr::Call(call) = expr else {
                    panic!("not a call: {code}")
                };
                call.arguments
                    .args
                    .iter()
                    .map(|a| show_to_arg(classify_to_arg(a, &arg_fact(a))))
                    .collect()
            });
            assert_eq!(got, *want, "{code}");
        }
    }

    #[test]
    fn to_argument_facts_win_over_names() {
        // A parameter named `dtype` is only a guess; one annotated `torch.dtype` is sure.
        let cases: &[(ValueKind, &str)] = &[
            (ValueKind::DTypeGuess, "dtype ? guess"),
            (ValueKind::DTypeValue(None), "dtype ? sure"),
            (ValueKind::DTypeValue(Some(DType::Int8)), "dtype int8 sure"),
            (ValueKind::DeviceValue, "device"),
            (ValueKind::Unknown, "tensor"),
        ];
        for (kind, want) in cases {
            let got = with_expr("p", |arg| {
                show_to_arg(classify_to_arg(arg, &Fact::of_kind(kind.clone())))
            });
            assert_eq!(got, *want, "{kind:?}");
        }
    }

    #[test]
    fn dtype_names() {
        let cases: &[(&str, Option<DType>)] = &[
            ("torch.float16", Some(DType::Float16)),
            ("torch.long", Some(DType::Int64)),
            ("torch.bool", Some(DType::Bool)),
            ("np.float32", None),
            ("torch.nn", None),
            ("float16", None),
        ];
        for (code, want) in cases {
            assert_eq!(
                with_expr(code, |e| dtype_of_expr(e, torch_only)),
                *want,
                "{code}"
            );
        }
    }

    #[test]
    fn dtype_guards() {
        // (test, facts on the true path, facts on the false path), each as `receiver:dtype`.
        let cases: &[(&str, &str, &str)] = &[
            ("m.dtype == torch.bool", "m:bool", ""),
            ("torch.bool == m.dtype", "m:bool", ""),
            ("self.mask.dtype is torch.float16", "self.mask:float16", ""),
            ("m.dtype != torch.bool", "", "m:bool"),
            ("m.dtype is not torch.long", "", "m:int64"),
            ("not m.dtype == torch.bool", "", "m:bool"),
            ("flag and m.dtype == torch.bool", "m:bool", ""),
            (
                "a.dtype != torch.bool or b.dtype != torch.half",
                "",
                "a:bool b:float16",
            ),
            // Proves nothing: an `or` on its true path, an `and` on its false path, other tests.
            ("flag or m.dtype == torch.bool", "", ""),
            ("flag and m.dtype != torch.bool", "", ""),
            ("m.dtype in (torch.float16, torch.bfloat16)", "", ""),
            ("m.dtype == dtype", "", ""),
            ("m.dtype == np.bool_", "", ""),
            ("m.device == torch.bool", "", ""),
            ("m.dtype == torch.bool == n.dtype", "", ""),
        ];
        let show = |facts: &[(&Expr, DType)]| {
            facts
                .iter()
                .map(|(e, d)| {
                    let mut key = String::new();
                    let mut cur = *e;
                    while let Expr::Attribute(a) = cur {
                        key = format!(".{}{key}", a.attr.id.as_str());
                        cur = &a.value;
                    }
                    if let Expr::Name(n) = cur {
                        key = format!("{}{key}", n.id.as_str());
                    }
                    format!("{key}:{}", d.name())
                })
                .collect::<Vec<_>>()
                .join(" ")
        };
        for (code, when_true, when_false) in cases {
            let (t, f) = with_expr(code, |e| {
                let guard = dtype_guard(e, &torch_only);
                (show(&guard.when_true), show(&guard.when_false))
            });
            assert_eq!(
                (t.as_str(), f.as_str()),
                (*when_true, *when_false),
                "{code}"
            );
        }
    }

    #[test]
    fn literals() {
        let numbers: &[(&str, bool)] = &[
            ("3", true),
            ("-2.5", true),
            ("+1", true),
            ("--1", true),
            ("x", false),
            ("-x", false),
            ("True", false),
            ("~1", false),
        ];
        for (code, want) in numbers {
            assert_eq!(with_expr(code, is_number_literal), *want, "{code}");
        }
        let floats: &[(&str, bool)] = &[
            ("1.0", true),
            ("-0.5", true),
            ("float(n)", true),
            ("torch.finfo(t).eps", true),
            ("math.inf", true),
            ("2", false),
            ("n", false),
            ("int(n)", false),
        ];
        for (code, want) in floats {
            assert_eq!(with_expr(code, is_float_scalar), *want, "{code}");
        }
    }

    #[test]
    fn arithmetic_promotion() {
        // (tensor `x` <op> Python scalar, dtype of x, dtype of the result)
        let cases: &[(&str, Option<DType>, Option<DType>)] = &[
            ("x * 2", Some(DType::Float16), Some(DType::Float16)),
            ("x * -0.5", Some(DType::BFloat16), Some(DType::BFloat16)),
            ("x / 2", Some(DType::Int64), Some(DType::Float32)),
            ("x * 0.5", Some(DType::Int64), Some(DType::Float32)),
            ("x * float(n)", Some(DType::Int32), Some(DType::Float32)),
            (
                "x + torch.finfo(t).min",
                Some(DType::Int64),
                Some(DType::Float32),
            ),
            ("x + 1", Some(DType::Int64), Some(DType::Int64)),
            ("x & m", Some(DType::Bool), Some(DType::Bool)),
            ("x + 1", Some(DType::Bool), Some(DType::Bool)),
            ("x / 2", None, Some(DType::Float32)),
            ("x - 1", None, None),
        ];
        for (code, tensor, want) in cases {
            let got = with_expr(code, |expr| {
                let Expr::BinOp(b) = expr else {
                    panic!("not a binary operation: {code}")
                };
                arithmetic_dtype(*tensor, b.op, scalar_is_float(b))
            });
            assert_eq!(got, *want, "{code} with x: {tensor:?}");
        }
    }

    #[test]
    fn scalar_spellings() {
        let cases: &[(&str, bool)] = &[
            ("self.p", true),
            ("self.offset", true),
            ("self.config.layer_norm_eps", true),
            ("scale", true),
            ("self.attn_scale", true),
            ("pad_token_id", true),
            ("-self.margin", true),
            ("self.temperature * 2", true),
            ("min_value_of_dtype(x.dtype)", true),
            ("torch.tensor(0.0)", true),
            ("torch.tensor(-1)", true),
            ("torch.tensor(torch.finfo(t).min)", true),
            ("torch.zeros(())", true),
            ("torch.ones([])", true),
            ("torch.full((), v)", true),
            ("torch.scalar_tensor(v)", true),
            // Not spelled like a number: may be a tensor of the full size.
            ("self.weight", false),
            ("self.gamma", false),
            ("scores", false),
            ("self.pos_embed", false),
            ("scale_tensor", false),
            ("torch.tensor(values)", false),
            ("torch.zeros(b, h)", false),
            ("torch.full((b, 1), v)", false),
            ("get_mask(x)", false),
            ("self.p @ w", false),
        ];
        for (code, want) in cases {
            assert_eq!(with_expr(code, scalar_like_expr), *want, "{code}");
        }
    }

    #[test]
    fn annotations() {
        let cases: &[(&str, ValueKind, Option<DType>)] = &[
            ("torch.dtype", ValueKind::DTypeValue(None), None),
            ("torch.device", ValueKind::DeviceValue, None),
            ("int", ValueKind::Scalar, None),
            ("bool", ValueKind::NotTensor, None),
            ("Tensor", ValueKind::Tensor, None),
            ("torch.LongTensor", ValueKind::Tensor, Some(DType::Int64)),
            ("'torch.BoolTensor'", ValueKind::Tensor, Some(DType::Bool)),
            ("Optional[Tensor]", ValueKind::Unknown, None),
        ];
        for (code, kind, dtype) in cases {
            let fact = with_expr(code, annotation_fact);
            assert_eq!((&fact.kind, fact.dtype), (kind, *dtype), "{code}");
        }
    }
}
