//! Sizes known by construction: a tensor `__init__` makes once with its sizes written out
//! (`self.probe = nn.Parameter(torch.randn(1, 1, hidden))`: a learned query, a class token), and
//! integers read off a dim of known size (`t = probe.shape[1]`), so that a count such as `t` prices
//! the dim it grows (`mask.repeat(1, heads, t, 1)` of a `[B, 1, 1, K]` mask is `[B, heads, 1, K]`).

use super::*;

use crate::analysis::dataflow::unit_results;
use crate::analysis::dtype_infer::is_number_literal;
use crate::analysis::facts::DType;
use crate::analysis::op_table;
use crate::analysis::shape_infer::{SizeArg, Sizes, arange_dim, factory_shape, literal_int};
use crate::analysis::torch_api::{
    COPY_ENLARGERS, MATERIALIZE_METHODS, UNARY_ELEMENTWISE, VIEW_ENLARGERS, VIEW_METHODS,
    is_sized_factory, returns_bool,
};

/// The shapes of the tensors a class's `__init__` assigns to `self.<attr>` at its top level with
/// sizes written out (and the numbers it assigns), for attributes that no other statement of the class assigns; and the
/// attributes so assigned an `nn.Parameter(...)` (whatever its sizes).
pub(super) fn parameter_shapes<'t>(
    class: &ast::StmtClassDef,
    text: &'t str,
    counts: &mut Option<AssignCounts<'t>>,
) -> (HashMap<String, Fact>, HashMap<String, DType>) {
    let mut shapes = HashMap::new();
    let mut params = HashMap::new();
    let Some(init) = class.body.iter().find_map(|stmt| match stmt {
        Stmt::FunctionDef(f) if f.name.id.as_str() == "__init__" => Some(f),
        _ => None,
    }) else {
        return (shapes, params);
    };
    let class_text = text.get(class.range.to_std_range()).unwrap_or("");
    for stmt in &init.body {
        let Some((attr, value)) = self_store(stmt) else {
            continue;
        };
        let shape = written_shape(value, text);
        // A bool or integer buffer keeps its dtype through `module.half()` / `.to(dtype)`, which
        // cast only floating buffers; a Parameter's is its initializer's.
        let dtype = if is_parameter_call(value, text) {
            initializer_dtype(value, text)
        } else if is_buffer(stmt) {
            initializer_dtype(value, text).filter(|d| !d.is_floating())
        } else {
            None
        };
        let number = shape.is_none() && is_number(value);
        // Counting the class's assignments reads its whole text: only for a value known here.
        if (shape.is_none() && dtype.is_none() && !number)
            || counts
                .get_or_insert_with(|| AssignCounts::new(class_text))
                .of(attr)
                != 1
        {
            continue;
        }
        if let Some(shape) = shape {
            shapes.insert(attr.to_string(), Fact::tensor(None, Some(shape)));
        } else if number {
            // `self.scale = 5000`: a Python number wherever a method reads it.
            shapes.insert(attr.to_string(), Fact::of_kind(ValueKind::Scalar));
        }
        if let Some(dtype) = dtype {
            params.insert(attr.to_string(), dtype);
        }
    }
    (shapes, params)
}

/// `self.attr = value`, or `self.register_buffer("attr", value, ...)` (a buffer is stored on
/// `self.attr` as well): the attribute and its value.
fn self_store(stmt: &Stmt) -> Option<(&str, &Expr)> {
    let is_self = |e: &Expr| matches!(e, Expr::Name(n) if n.id.as_str() == "self");
    match stmt {
        Stmt::Assign(assign) => match assign.targets.as_slice() {
            [Expr::Attribute(target)] if is_self(&target.value) => {
                Some((target.attr.id.as_str(), &*assign.value))
            }
            _ => None,
        },
        Stmt::Expr(e) => {
            let Expr::Call(call) = &*e.value else {
                return None;
            };
            let Expr::Attribute(a) = &*call.func else {
                return None;
            };
            match call.arguments.args.as_ref() {
                [Expr::StringLiteral(name), value, ..]
                    if a.attr.id.as_str() == "register_buffer" && is_self(&a.value) =>
                {
                    Some((name.value.to_str(), value))
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// `self.register_buffer(...)`.
fn is_buffer(stmt: &Stmt) -> bool {
    matches!(stmt, Stmt::Expr(e) if matches!(&*e.value, Expr::Call(c)
        if matches!(&*c.func, Expr::Attribute(a) if a.attr.id.as_str() == "register_buffer")))
}

/// The dtype a parameter's initializer is made with, as written: a factory's `dtype=` or its
/// default (`torch.randn`, `zeros`, `ones`, `empty`, `rand` give float32, `randint` int64), through
/// calls that keep it (views, copies, `repeat`, one-tensor math such as `torch.log`, arithmetic
/// with a number on a floating tensor) or set it (`.float()`, `.to(torch.bfloat16)`). None for
/// anything else (a tensor passed in, `torch.tensor(data)` without `dtype=`).
fn initializer_dtype(expr: &Expr, text: &str) -> Option<DType> {
    let torch_dtype = |e: &Expr| {
        let code = text.get(e.range().to_std_range())?;
        DType::from_torch_name(code.strip_prefix("torch.")?)
    };
    match expr {
        Expr::Call(call) => {
            let args = &call.arguments.args;
            let dtype_kw = call
                .arguments
                .keywords
                .iter()
                .find(|k| k.arg.as_ref().is_some_and(|a| a.id.as_str() == "dtype"));
            let callee = text.get(call.func.range().to_std_range())?;
            if matches!(callee, "Parameter" | "nn.Parameter" | "torch.nn.Parameter") {
                return initializer_dtype(args.first()?, text);
            }
            let torch_function = match &*call.func {
                Expr::Attribute(a) if matches!(&*a.value, Expr::Name(n) if n.id.as_str() == "torch") => {
                    Some(a.attr.id.as_str())
                }
                _ => None,
            };
            if let Some(function) = torch_function {
                if let Some(kw) = dtype_kw {
                    return torch_dtype(&kw.value);
                }
                return match function {
                    "randn" | "rand" | "zeros" | "ones" | "empty" => Some(DType::Float32),
                    "randint" => Some(DType::Int64),
                    _ if UNARY_ELEMENTWISE.contains(&function) && !returns_bool(function) => {
                        initializer_dtype(args.first()?, text).filter(|d| d.is_floating())
                    }
                    // The op table's result class: `torch.tril(m)` keeps `m`'s dtype,
                    // `torch.isin` gives bool.
                    _ => op_table::function("torch", function).and_then(|op| {
                        op.dtype
                            .of_input(args.first().and_then(|a| initializer_dtype(a, text)))
                    }),
                };
            }
            let Expr::Attribute(a) = &*call.func else {
                return None;
            };
            let method = a.attr.id.as_str();
            if let Some(dtype) = DType::from_cast_method(method).filter(|_| args.is_empty()) {
                return Some(dtype);
            }
            if method == "to" {
                return match (&args[..], dtype_kw) {
                    ([one], None) => torch_dtype(one),
                    ([], Some(kw)) => torch_dtype(&kw.value),
                    _ => None,
                };
            }
            let keeps = VIEW_METHODS.contains(&method)
                || COPY_ENLARGERS.contains(&method)
                || VIEW_ENLARGERS.contains(&method)
                || MATERIALIZE_METHODS.contains(&method)
                || (UNARY_ELEMENTWISE.contains(&method) && !returns_bool(method));
            if keeps {
                return initializer_dtype(&a.value, text);
            }
            // The op table's result class: `.tril()` keeps the dtype, `.isnan()` gives bool.
            op_table::method(method)
                .and_then(|op| op.dtype.of_input(initializer_dtype(&a.value, text)))
        }
        // A comparison gives bool.
        Expr::Compare(_) => Some(DType::Bool),
        Expr::BinOp(b) if b.op != ast::Operator::MatMult => {
            let (tensor, number) = if is_number_literal(&b.right) {
                (&*b.left, &*b.right)
            } else {
                (&*b.right, &*b.left)
            };
            if !is_number_literal(number) {
                return None;
            }
            initializer_dtype(tensor, text).filter(|d| d.is_floating())
        }
        Expr::UnaryOp(u) => initializer_dtype(&u.operand, text).filter(|d| d.is_floating()),
        _ => None,
    }
}

/// `nn.Parameter(...)`, `Parameter(...)`, `torch.nn.Parameter(...)`.
fn is_parameter_call(value: &Expr, text: &str) -> bool {
    let Expr::Call(call) = value else {
        return false;
    };
    matches!(
        text.get(call.func.range().to_std_range()),
        Some("Parameter" | "nn.Parameter" | "torch.nn.Parameter")
    )
}

/// The `torch.nn` modules a class's `__init__` assigns to `self.<attr>` at its top level
/// (`self.proj = nn.Linear(d, e)`, `self.act = GELU()` imported from `torch.nn`), for attributes
/// that no other statement of the class assigns: attribute -> module class name; and of those,
/// the adaptive poolings to an output size of 1: attribute -> the dims their result has of 1.
pub(super) fn init_modules<'t>(
    class: &ast::StmtClassDef,
    text: &'t str,
    imports: &rustc_hash::FxHashMap<String, String>,
    counts: &mut Option<AssignCounts<'t>>,
) -> (HashMap<String, String>, HashMap<String, Vec<i64>>) {
    let mut modules = HashMap::new();
    let mut unit_pools = HashMap::new();
    let Some(init) = class.body.iter().find_map(|stmt| match stmt {
        Stmt::FunctionDef(f) if f.name.id.as_str() == "__init__" => Some(f),
        _ => None,
    }) else {
        return (modules, unit_pools);
    };
    let class_text = text.get(class.range.to_std_range()).unwrap_or("");
    for stmt in &init.body {
        let Stmt::Assign(assign) = stmt else { continue };
        let ([Expr::Attribute(target)], Expr::Call(call)) =
            (assign.targets.as_slice(), &*assign.value)
        else {
            continue;
        };
        if !matches!(&*target.value, Expr::Name(n) if n.id.as_str() == "self") {
            continue;
        }
        let path = match &*call.func {
            Expr::Name(n) => imports.get(n.id.as_str()).cloned(),
            Expr::Attribute(a) => text
                .get(a.value.range().to_std_range())
                .map(|m| match m {
                    "nn" => "torch.nn".to_string(),
                    other => imports
                        .get(other)
                        .cloned()
                        .unwrap_or_else(|| other.to_string()),
                })
                .map(|m| format!("{m}.{}", a.attr.id)),
            _ => None,
        };
        let Some(class_name) = path.as_deref().and_then(|p| p.strip_prefix("torch.nn.")) else {
            continue;
        };
        let attr = target.attr.id.as_str();
        if !class_name.contains('.')
            && counts
                .get_or_insert_with(|| AssignCounts::new(class_text))
                .of(attr)
                == 1
        {
            if let Some(dims) = unit_results::output_size_arg(call, 0)
                .and_then(|size| unit_results::adaptive_pool_unit_dims(class_name, call, size))
            {
                unit_pools.insert(attr.to_string(), dims);
            }
            modules.insert(attr.to_string(), class_name.to_string());
        }
    }
    (modules, unit_pools)
}

/// A number literal, or its negation.
fn is_number(value: &Expr) -> bool {
    match value {
        Expr::NumberLiteral(_) => true,
        Expr::UnaryOp(u) => matches!(&*u.operand, Expr::NumberLiteral(_)),
        _ => false,
    }
}

/// `torch.zeros(1, 1, d)`, `nn.Parameter(torch.randn(1, n, d))`: the sizes as written.
fn written_shape(value: &Expr, text: &str) -> Option<Shape> {
    let Expr::Call(call) = value else { return None };
    let callee = text.get(call.func.range().to_std_range())?;
    let args: Vec<&Expr> = call.arguments.args.iter().collect();
    if matches!(callee, "Parameter" | "nn.Parameter" | "torch.nn.Parameter") {
        return written_shape(args.first()?, text);
    }
    // `torch.arange(1, n + 1).unsqueeze(0)`: a unit dim at `k` of a shape written out.
    if let Expr::Attribute(a) = &*call.func
        && a.attr.id.as_str() == "unsqueeze"
        && call.arguments.keywords.is_empty()
        && let [k] = &args[..]
    {
        let mut shape = written_shape(&a.value, text)?;
        let rank = shape.rank() as i64;
        let at = literal_int(k).map(|k| if k < 0 { k + rank + 1 } else { k })?;
        let at = usize::try_from(at).ok().filter(|&at| at <= shape.rank())?;
        shape.0.insert(at, Dim::Size(SymExpr::Num(1)));
        return Some(shape);
    }
    let factory = callee.strip_prefix("torch.")?;
    if factory == "arange" {
        return arange_dim(&args, call, text).map(|d| Shape(vec![d]));
    }
    if !is_sized_factory(factory) || factory == "randint" {
        return None;
    }
    let sizes = if factory == "full" {
        &args[..args.len().min(1)]
    } else {
        &args[..]
    };
    factory_shape(sizes, text)
}

/// How many statements of a class's text assign each `self.<attr>` (`=`, `:` annotations,
/// augmented assignments, a tuple target), counted as words, plus each attribute named in a
/// string literal (`setattr(self, "mask", m)`): `self.probe = ...` once in `__init__` is 1. Built
/// in one pass over the class (a class of many attributes is not read once per attribute), at most
/// once per class (`parameter_shapes` and `init_modules` share it).
pub(super) struct AssignCounts<'t> {
    // Looked up only, never iterated: a fast hasher changes no output.
    assigns: rustc_hash::FxHashMap<&'t str, usize>,
    quoted: rustc_hash::FxHashMap<&'t str, usize>,
}

/// The length of the word (letters, digits, `_`) `text` starts with: bytes while they are ASCII
/// (most of the time), chars from the first other one.
fn word_len(text: &str) -> usize {
    let ascii = text
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
        .count();
    match text.as_bytes().get(ascii) {
        Some(b) if !b.is_ascii() => {
            let rest = &text[ascii..];
            ascii
                + rest
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len())
        }
        _ => ascii,
    }
}

impl<'t> AssignCounts<'t> {
    pub(super) fn new(class_text: &'t str) -> Self {
        let is_word = |c: char| c.is_alphanumeric() || c == '_';
        let mut assigns = rustc_hash::FxHashMap::<&str, usize>::default();
        // memchr's SIMD searches: a class's text is long (docstrings), and "self." cannot
        // overlap itself, so the same places as `match_indices`.
        for i in memchr::memmem::find_iter(class_text.as_bytes(), "self.") {
            if class_text[..i]
                .chars()
                .next_back()
                .is_some_and(|c| is_word(c) || c == '.')
            {
                continue;
            }
            let after = &class_text[i + "self.".len()..];
            let len = word_len(after);
            if len == 0 {
                continue;
            }
            let rest = &after[len..];
            let rest = &rest[rest
                .bytes()
                .take_while(|b| matches!(b, b' ' | b'\t'))
                .count()..];
            let assigns_here = (rest.starts_with('=') && !rest.starts_with("=="))
                || rest.starts_with(':') && !rest.starts_with(":=")
                || [
                    "+=", "-=", "*=", "/=", "//=", "@=", "%=", "**=", "&=", "|=", "^=",
                ]
                .iter()
                .any(|op| rest.starts_with(op))
                // `self.a, self.b = ...`: a tuple target assigns it too.
                || rest.starts_with(',');
            if assigns_here {
                *assigns.entry(&after[..len]).or_default() += 1;
            }
        }
        let mut quoted = rustc_hash::FxHashMap::<&str, usize>::default();
        for i in memchr::memchr2_iter(b'"', b'\'', class_text.as_bytes()) {
            let q = &class_text[i..=i];
            let after = &class_text[i + 1..];
            let len = word_len(after);
            if len > 0 && after[len..].starts_with(q) {
                *quoted.entry(&after[..len]).or_default() += 1;
            }
        }
        AssignCounts { assigns, quoted }
    }

    pub(super) fn of(&self, attr: &str) -> usize {
        self.assigns.get(attr).copied().unwrap_or(0) + self.quoted.get(attr).copied().unwrap_or(0)
    }
}

impl Walker<'_, '_> {
    /// `b, s = x.shape` / `b, s = x.size()`: `x` has shape `[b, s]` (names starting with `_`
    /// stand for dims nobody names).
    pub(super) fn learn_shape_from_unpack(&mut self, targets: &[Expr], value: &Expr) {
        let base = match value {
            Expr::Attribute(a) if a.attr.id.as_str() == "shape" => &*a.value,
            Expr::Call(c) if c.arguments.is_empty() => match &*c.func {
                Expr::Attribute(a) if a.attr.id.as_str() == "size" => &*a.value,
                _ => return,
            },
            _ => return,
        };
        let Some(key) = dotted_key(base) else { return };
        let mut dims = Vec::with_capacity(targets.len());
        for target in targets {
            match target {
                Expr::Name(n) if n.id.starts_with('_') => dims.push(Dim::Unknown),
                Expr::Name(n) => dims.push(Dim::Size(SymExpr::Var(n.id.to_string()))),
                _ => return,
            }
        }
        let mut fact = self
            .env
            .get(&key)
            .cloned()
            .unwrap_or_else(|| Fact::tensor(None, None));
        if fact.shape.is_none() && !fact.is_not_tensor() {
            fact.kind = ValueKind::Tensor;
            fact.shape = Some(Shape(dims));
            self.env.insert(key, fact);
        }
    }

    /// `x.shape[i]`, `x.size(i)`, `x.size()[i]` of a tensor whose dim `i` is a known number.
    pub(super) fn known_dim_read(&self, value: &Expr) -> Option<i64> {
        let (base, index) = match value {
            Expr::Subscript(s) => {
                let index = literal_int(&s.slice)?;
                match &*s.value {
                    Expr::Attribute(a) if a.attr.id.as_str() == "shape" => (&*a.value, index),
                    Expr::Call(c) if c.arguments.is_empty() => match &*c.func {
                        Expr::Attribute(a) if a.attr.id.as_str() == "size" => (&*a.value, index),
                        _ => return None,
                    },
                    _ => return None,
                }
            }
            Expr::Call(c) => match (&*c.func, c.arguments.args.as_ref()) {
                (Expr::Attribute(a), [arg])
                    if a.attr.id.as_str() == "size" && c.arguments.keywords.is_empty() =>
                {
                    (&*a.value, literal_int(arg)?)
                }
                _ => return None,
            },
            _ => return None,
        };
        let shape = self.env.get(&dotted_key(base)?)?.shape.as_ref()?;
        let at = if index < 0 {
            index + shape.rank() as i64
        } else {
            index
        };
        match shape.0.get(usize::try_from(at).ok()?)? {
            Dim::Size(SymExpr::Num(n)) => Some(*n),
            _ => None,
        }
    }
}

impl Walker<'_, '_> {
    /// `t, s = probe.shape[1], x.shape[1]`: the names bound to a read of a dim of known size (read
    /// before the assignment rebinds anything).
    pub(super) fn known_sizes_of_pairs(
        &self,
        targets: &[Expr],
        value: &Expr,
    ) -> Vec<(String, i64)> {
        let Expr::Tuple(values) = value else {
            return Vec::new();
        };
        if values.elts.len() != targets.len() {
            return Vec::new();
        }
        targets
            .iter()
            .zip(&values.elts)
            .filter_map(|(target, value)| match target {
                Expr::Name(n) => Some((n.id.to_string(), self.known_dim_read(value)?)),
                _ => None,
            })
            .collect()
    }

    /// Records the sizes `known_sizes_of_pairs` found on the names just bound.
    pub(super) fn set_known_sizes(&mut self, known: Vec<(String, i64)>) {
        for (name, size) in known {
            if let Some(fact) = self.env.get(name.as_str()) {
                let fact = Fact {
                    int_value: Some(size),
                    ..fact.clone()
                };
                self.set(name, fact);
            }
        }
    }

    /// A shape whose dims are names of a known value (`reshape(-1, target_len, n)`) with that value.
    pub(in crate::analysis::dataflow) fn with_known_dims(&self, shape: Shape) -> Shape {
        Shape(
            shape
                .0
                .into_iter()
                .map(|dim| match dim {
                    Dim::Size(SymExpr::Var(name)) => {
                        match self.env.get(&name).and_then(|f| f.int_value) {
                            Some(n) => Dim::Size(SymExpr::Num(n)),
                            None => Dim::Size(SymExpr::Var(name)),
                        }
                    }
                    other => other,
                })
                .collect(),
        )
    }

    /// Sizes held in names whose value is known replaced by that value.
    pub(in crate::analysis::dataflow) fn with_known_counts(&self, sizes: Sizes) -> Sizes {
        let Sizes::Dims(dims) = sizes else {
            return sizes;
        };
        Sizes::Dims(
            dims.into_iter()
                .map(|arg| match arg {
                    SizeArg::Size(SymExpr::Var(name)) => {
                        match self.env.get(&name).and_then(|f| f.int_value) {
                            Some(n) => SizeArg::Size(SymExpr::Num(n)),
                            None => SizeArg::Size(SymExpr::Var(name)),
                        }
                    }
                    other => other,
                })
                .collect(),
        )
    }
}

/// The tensor whose leading size `value` reads: `x` of `x.shape[0]`, `x.size(0)`, `x.size()[0]`,
/// `len(x)`.
pub(super) fn leading_size_read(value: &Expr) -> Option<&Expr> {
    match value {
        Expr::Subscript(s) if crate::analysis::shape_infer::literal_int(&s.slice) == Some(0) => {
            match &*s.value {
                Expr::Attribute(a) if a.attr.id.as_str() == "shape" => Some(&*a.value),
                Expr::Call(c) if c.arguments.is_empty() => match &*c.func {
                    Expr::Attribute(a) if a.attr.id.as_str() == "size" => Some(&*a.value),
                    _ => None,
                },
                _ => None,
            }
        }
        Expr::Call(c) => match (&*c.func, c.arguments.args.as_ref()) {
            (Expr::Attribute(a), [arg])
                if a.attr.id.as_str() == "size"
                    && c.arguments.keywords.is_empty()
                    && crate::analysis::shape_infer::literal_int(arg) == Some(0) =>
            {
                Some(&*a.value)
            }
            (Expr::Name(n), [arg]) if n.id.as_str() == "len" && c.arguments.keywords.is_empty() => {
                Some(arg)
            }
            _ => None,
        },
        _ => None,
    }
}

/// `x.shape[k] == 1`, `x.size(k) == 1` (either side): the name and the dim.
fn unit_dim_test(test: &Expr) -> Option<(String, i64)> {
    let Expr::Compare(c) = test else { return None };
    let ([ast::CmpOp::Eq], [right]) = (&*c.ops, &*c.comparators) else {
        return None;
    };
    let read = if literal_int(right) == Some(1) {
        &*c.left
    } else if literal_int(&c.left) == Some(1) {
        right
    } else {
        return None;
    };
    let (tensor, dim) = match read {
        Expr::Subscript(s) => match &*s.value {
            Expr::Attribute(a) if a.attr.id.as_str() == "shape" => {
                (&*a.value, literal_int(&s.slice)?)
            }
            _ => return None,
        },
        Expr::Call(call) => match (&*call.func, call.arguments.args.first()) {
            (Expr::Attribute(a), Some(d)) if a.attr.id.as_str() == "size" => {
                (&*a.value, literal_int(d)?)
            }
            _ => return None,
        },
        _ => return None,
    };
    Some((dotted_key(tensor)?, dim))
}

impl Walker<'_, '_> {
    /// Past `assert x.shape[k] == 1`: dim `k` of `x` is 1 (a `repeat` of it could be `expand`).
    pub(super) fn assume_unit_dim(&mut self, test: &Expr) {
        let Some((name, dim)) = unit_dim_test(test) else {
            return;
        };
        let fact = self.env.entry_or(name, Fact::default);
        match &mut fact.shape {
            Some(shape) => {
                let rank = shape.rank() as i64;
                let d = if dim < 0 { rank + dim } else { dim };
                if let Some(slot) = usize::try_from(d).ok().and_then(|d| shape.0.get_mut(d)) {
                    *slot = Dim::Size(SymExpr::Num(1));
                }
            }
            None if !fact.unit_dims.contains(&dim) => fact.unit_dims.push(dim),
            None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::parse_module;

    #[test]
    fn a_parameter_has_its_initializers_dtype() {
        // (initializer, dtype)
        let cases: &[(&str, Option<DType>)] = &[
            ("nn.Parameter(torch.randn(h, d))", Some(DType::Float32)),
            (
                "nn.Parameter(torch.randn(h, d) * 0.02)",
                Some(DType::Float32),
            ),
            (
                "nn.Parameter(torch.zeros(h, d, dtype=torch.bfloat16))",
                Some(DType::BFloat16),
            ),
            (
                "nn.Parameter(torch.log(torch.arange(1, n + 1, dtype=torch.float32)).repeat(h, 1))",
                Some(DType::Float32),
            ),
            ("nn.Parameter(torch.ones(d).half())", Some(DType::Float16)),
            ("nn.Parameter(w.expand(h, d).clone())", None),
            ("nn.Parameter(torch.arange(n))", None),
            ("nn.Parameter(torch.tensor(values))", None),
            (
                "nn.Parameter(torch.randint(0, 9, (h,)).float())",
                Some(DType::Float32),
            ),
            // Buffer initializers: the op table's result class.
            (
                "torch.ones(n, n, dtype=torch.bool).tril()",
                Some(DType::Bool),
            ),
            (
                "torch.tril(torch.ones(n, n, dtype=torch.bool))",
                Some(DType::Bool),
            ),
            (
                "torch.arange(n)[None, :] <= torch.arange(n)[:, None]",
                Some(DType::Bool),
            ),
            ("torch.isnan(w)", Some(DType::Bool)),
            ("torch.ones(n, n).tril()", Some(DType::Float32)),
            ("w.tril()", None),
        ];
        for (code, want) in cases {
            let parsed = parse_module(code, false);
            let Some(Stmt::Expr(e)) = parsed.body.first() else {
                panic!("not an expression: {code}");
            };
            assert_eq!(initializer_dtype(&e.value, code), *want, "{code}");
        }
    }
}
