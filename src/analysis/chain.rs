//! The conversion chain of a site: the elementwise operations that follow one enlargement, in its
//! own statement and in the statements after it, up to the value that leaves the chain. A fix that
//! moves only the site's own operation before the enlarger leaves the next one (`~m` after
//! `m.bool()`, `* min` after `1.0 - m`) running on the enlarged view; a fix that moves the
//! enlarger past the whole chain leaves none. Pure syntax, computed on demand (only for a site
//! whose fix is built); it knows no rule codes and decides no applicability.

use std::collections::HashSet;

use crate::source::ast::visitor::{self, Visitor};
use crate::source::ast::{CmpOp, Expr, ExprContext, Operator, Stmt, UnaryOp};
use crate::source::{Ranged, TextRange, TextSize, parse_module};

use super::facts::DType;
use super::torch_api::{BINARY_ELEMENTWISE, FLOAT_CONSTANT_ATTRIBUTES, UNARY_ELEMENTWISE};
use super::{SinkKind, Site, StepRole};

/// How the value that ends the chain is used afterwards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChainEnd {
    /// Returned (or the chain ends in a `return`): callers may write it or need it dense.
    Returned,
    /// Bound to a name that is only read by broadcasting consumers (an operand of an arithmetic
    /// or comparison operator, the mask of `masked_fill`, the condition of `torch.where`), or
    /// not read at all: a broadcast view gives every later use the same values.
    BroadcastOnly,
    /// Bound to a name read some other way (passed to a call, indexed, stored, ...).
    Other,
}

/// The elementwise operations after one enlargement, as facts for a fix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConversionChain {
    /// The enlarger call to take out where it stands: from the dot before its name to its
    /// closing parenthesis (`.expand(b, s, s)`).
    pub enlarger: TextRange,
    /// The enlarger as written, from its name to its closing parenthesis (`expand(b, s, s)`).
    pub enlarger_call: TextRange,
    /// The first statement holds only the enlarged value under the name it had before
    /// (`m = m.expand(...)`): once the enlarger is out it is a no-op line.
    pub first_becomes_noop: Option<TextRange>,
    /// Statements after the enlarger's own that continue the chain.
    pub links: usize,
    /// The value that ends the chain, where the enlarger goes back.
    pub end_value: TextRange,
    /// A method call can follow the end value as written (a name, call, attribute, subscript);
    /// otherwise it needs parentheses.
    pub end_is_primary: bool,
    /// In the end value, the chain value its result is computed from first (the receiver of its
    /// outermost method, the left operand of its operator, ...), when it is a name of the chain
    /// in a later statement: enlarging that one keeps the end value a full-size tensor of the
    /// same layout, while every conversion before it runs on the small tensor.
    pub end_spine: Option<TextRange>,
    pub end: ChainEnd,
}

/// The conversion chain that starts at the site's enlarger, when the site's own operation is
/// part of it and the chain can be followed (one block, no loop, nothing else reads its
/// intermediates, the enlarger's arguments keep their values up to the chain's end).
///
/// Only the site's function is parsed (wrapped in `if True:` when it is indented), so a file
/// with thousands of sites is not parsed once per site in full.
pub fn conversion_chain(site: &Site, text: &str) -> Option<ConversionChain> {
    let scope = site.scope_range;
    let start = line_start(text, scope.start());
    let body = text.get(start.to_usize()..scope.end().to_usize())?;
    let prefix = if body.starts_with([' ', '\t']) {
        "if True:\n"
    } else {
        ""
    };
    let snippet = format!("{prefix}{body}");
    let shift = TextSize::of(prefix);
    // Into the snippet's offsets and back out.
    let into = |r: TextRange| -> Option<TextRange> {
        (r.start() >= start && r.end() <= scope.end())
            .then(|| TextRange::new(r.start() - start + shift, r.end() - start + shift))
    };
    let mut local = site.clone();
    for step in local
        .enlarged
        .steps
        .iter_mut()
        .chain(std::iter::once(&mut local.sink_step))
    {
        if step.file.is_some() {
            return None;
        }
        step.range = into(step.range)?;
        step.stmt = into(step.stmt)?;
        step.receiver = match step.receiver {
            Some(r) => Some(into(r)?),
            None => None,
        };
    }
    let chain = chain_in(&local, &snippet)?;
    let out = |r: TextRange| TextRange::new(r.start() - shift + start, r.end() - shift + start);
    Some(ConversionChain {
        enlarger: out(chain.enlarger),
        enlarger_call: out(chain.enlarger_call),
        first_becomes_noop: chain.first_becomes_noop.map(out),
        end_value: out(chain.end_value),
        end_spine: chain.end_spine.map(out),
        ..chain
    })
}

fn line_start(text: &str, offset: TextSize) -> TextSize {
    let before = text.get(..offset.to_usize()).unwrap_or("");
    TextSize::try_from(before.rfind(['\n', '\r']).map_or(0, |p| p + 1)).unwrap_or_default()
}

/// [`conversion_chain`] on a text that holds the site's function.
fn chain_in(site: &Site, text: &str) -> Option<ConversionChain> {
    let steps = &site.enlarged.steps;
    if site.enlarged.may
        || steps
            .iter()
            .any(|s| s.file.is_some() || !matches!(s.role, StepRole::Enlarge))
    {
        return None;
    }
    let [enlarge] = steps.as_slice() else {
        return None;
    };
    let receiver = enlarge.receiver?;
    let call_range = TextRange::new(receiver.start(), enlarge.range.end());
    let parsed = parse_module(text, false);
    if !parsed.syntax_errors.is_empty() {
        return None;
    }
    let found = find_block(&parsed.body, enlarge.stmt, &parsed.body, false)?;
    if found.in_loop {
        return None;
    }
    let block = found.block;
    let scope = found.scope;
    let first = &block[found.index];

    // The first statement: the enlarged value, converted elementwise, bound to one name.
    // A cast in the chain is to a dtype literal or to the site's own proven dtype (`.to(dtype)`
    // with `dtype: torch.dtype`); `.to(device)` or an unproven `.to(x)` ends the chain.
    let proven = |arg: &Expr| {
        matches!(site.sink, SinkKind::Cast { certain: true, .. })
            && text
                .get(arg.range().to_std_range())
                .is_some_and(|a| site.sink_step.code.contains(&format!("({a})")))
    };
    let (first_target, first_value) = link_parts(first)?;
    let mut names: HashSet<String> = HashSet::new();
    let is_enlarger = |e: &Expr| e.range() == call_range && matches!(e, Expr::Call(_));
    elementwise_count(first_value, &is_enlarger, &proven).filter(|n| *n == 1)?;
    let mut end_value = first_value;
    let mut end_stmt = first;
    let mut end_target = first_target;
    let mut links = 0usize;
    let mut chain_stmts = vec![first.range()];
    let mut stores_between: HashSet<String> = HashSet::new();
    if let Some(t) = first_target {
        names.insert(t.to_string());
        // Later statements: each converts names of the chain and binds a new one (or returns).
        for stmt in &block[found.index + 1..] {
            let mentioned = mentioned_names(stmt);
            if !mentioned.iter().any(|n| names.contains(n)) {
                stores_between.extend(stored_names(stmt));
                continue;
            }
            let Some((target, value)) = link_parts(stmt) else {
                break;
            };
            if matches!(value, Expr::Name(_)) {
                break;
            }
            let is_chain = |e: &Expr| matches!(e, Expr::Name(n) if names.contains(n.id.as_str()));
            if elementwise_count(value, &is_chain, &proven).is_none_or(|n| n == 0) {
                break;
            }
            links += 1;
            chain_stmts.push(stmt.range());
            end_value = value;
            end_stmt = stmt;
            end_target = target;
            match target {
                Some(t) => {
                    names.insert(t.to_string());
                }
                None => break,
            }
        }
    }
    // The site's own operation must be in the chain.
    if !chain_stmts
        .iter()
        .any(|r| r.contains_range(site.sink_step.range))
    {
        return None;
    }
    // The enlarger's arguments must mean the same at the end of the chain.
    let mut stores: HashSet<String> = stores_between;
    for stmt in block[found.index..]
        .iter()
        .take_while(|s| s.range().start() <= end_stmt.range().start())
    {
        stores.extend(stored_names(stmt));
    }
    let mut arg_names = Names::default();
    if let Some(Expr::Call(call)) = find_expr(first_value, call_range) {
        for arg in &call.arguments.args {
            arg_names.visit_expr(arg);
        }
        for kw in &call.arguments.keywords {
            arg_names.visit_expr(&kw.value);
        }
    }
    if arg_names.all.iter().any(|n| stores.contains(n)) {
        return None;
    }

    // Nothing outside the chain reads an intermediate name after it is bound.
    let chain_end = end_stmt.range().end();
    let mut loads = Loads::new(&names, end_target);
    for stmt in scope {
        loads.visit_stmt(stmt);
    }
    let inside_chain = |r: TextRange| chain_stmts.iter().any(|c| c.contains_range(r));
    for (name, range, _) in &loads.found {
        if range.start() < first.range().start() || inside_chain(*range) {
            continue;
        }
        let is_end = Some(name.as_str()) == end_target;
        if !is_end || range.start() < chain_end {
            return None;
        }
    }
    let end = match end_target {
        None => ChainEnd::Returned,
        Some(_)
            if loads
                .found
                .iter()
                .filter(|(n, r, _)| Some(n.as_str()) == end_target && r.start() >= chain_end)
                .all(|(_, _, broadcast)| *broadcast) =>
        {
            ChainEnd::BroadcastOnly
        }
        Some(_) => ChainEnd::Other,
    };
    let first_becomes_noop = match (first, first_value) {
        (Stmt::Assign(_), Expr::Call(_))
            if first_value.range() == call_range
                && first_target.is_some_and(|t| text.get(receiver.to_std_range()) == Some(t)) =>
        {
            Some(first.range())
        }
        _ => None,
    };
    let end_spine = if links > 0 {
        spine(end_value).filter(|e| matches!(e, Expr::Name(n) if names.contains(n.id.as_str())))
    } else {
        None
    }
    .map(Ranged::range);
    Some(ConversionChain {
        enlarger: TextRange::new(
            dot_before(text, enlarge.range.start())?,
            enlarge.range.end(),
        ),
        enlarger_call: enlarge.range,
        first_becomes_noop,
        links,
        end_value: end_value.range(),
        end_is_primary: matches!(
            end_value,
            Expr::Name(_) | Expr::Call(_) | Expr::Attribute(_) | Expr::Subscript(_)
        ),
        end_spine,
        end,
    })
}

/// Where the dot before a method name is (`x .bool()`), skipping whitespace only.
fn dot_before(text: &str, name_start: TextSize) -> Option<TextSize> {
    let before = text.get(..name_start.to_usize())?.trim_end();
    before
        .ends_with('.')
        .then(|| TextSize::try_from(before.len() - 1).ok())
        .flatten()
}

struct Found<'a> {
    block: &'a [Stmt],
    index: usize,
    /// The body of the innermost function holding the block (or the module).
    scope: &'a [Stmt],
    in_loop: bool,
}

fn find_block<'a>(
    body: &'a [Stmt],
    target: TextRange,
    scope: &'a [Stmt],
    in_loop: bool,
) -> Option<Found<'a>> {
    for (index, stmt) in body.iter().enumerate() {
        if stmt.range() == target {
            return Some(Found {
                block: body,
                index,
                scope,
                in_loop,
            });
        }
        if !stmt.range().contains_range(target) {
            continue;
        }
        return match stmt {
            Stmt::FunctionDef(f) => find_block(&f.body, target, &f.body, false),
            Stmt::ClassDef(c) => find_block(&c.body, target, scope, in_loop),
            Stmt::If(s) => find_block(&s.body, target, scope, in_loop).or_else(|| {
                s.elif_else_clauses
                    .iter()
                    .find_map(|c| find_block(&c.body, target, scope, in_loop))
            }),
            Stmt::With(s) => find_block(&s.body, target, scope, in_loop),
            Stmt::Try(s) => find_block(&s.body, target, scope, in_loop)
                .or_else(|| find_block(&s.orelse, target, scope, in_loop))
                .or_else(|| find_block(&s.finalbody, target, scope, in_loop)),
            Stmt::For(s) => find_block(&s.body, target, scope, true),
            Stmt::While(s) => find_block(&s.body, target, scope, true),
            _ => None,
        };
    }
    None
}

/// `name = value` (one plain name) or `return value`.
fn link_parts(stmt: &Stmt) -> Option<(Option<&str>, &Expr)> {
    match stmt {
        Stmt::Assign(a) => match a.targets.as_slice() {
            [Expr::Name(n)] => Some((Some(n.id.as_str()), &a.value)),
            _ => None,
        },
        Stmt::Return(r) => r.value.as_deref().map(|v| (None, v)),
        _ => None,
    }
}

/// A scalar whose value does not depend on any tensor's shape: a number, `float("-inf")`,
/// `torch.finfo(dtype).min`, `math.inf`.
fn is_scalar_literal(expr: &Expr) -> bool {
    match expr {
        Expr::NumberLiteral(_) | Expr::BooleanLiteral(_) => true,
        Expr::UnaryOp(u) => {
            matches!(u.op, UnaryOp::USub | UnaryOp::UAdd) && is_scalar_literal(&u.operand)
        }
        Expr::Call(c) => {
            matches!(&*c.func, Expr::Name(n) if n.id.as_str() == "float")
                && c.arguments.keywords.is_empty()
                && matches!(
                    c.arguments.args.as_ref(),
                    [Expr::StringLiteral(_) | Expr::NumberLiteral(_)]
                )
        }
        Expr::Attribute(a) => {
            let limit = FLOAT_CONSTANT_ATTRIBUTES.contains(&a.attr.id.as_str());
            match &*a.value {
                Expr::Call(c) => {
                    limit
                        && matches!(&*c.func, Expr::Attribute(f) if matches!(f.attr.id.as_str(), "finfo" | "iinfo"))
                }
                Expr::Name(m) => {
                    matches!(m.id.as_str(), "math" | "torch" | "np" | "numpy")
                        && matches!(a.attr.id.as_str(), "inf" | "pi" | "e")
                }
                _ => false,
            }
        }
        _ => false,
    }
}

/// `torch.bool`, `torch.float16`: a dtype written out.
fn is_dtype_literal(expr: &Expr) -> bool {
    matches!(expr, Expr::Attribute(a)
        if matches!(&*a.value, Expr::Name(m) if m.id.as_str() == "torch")
            && DType::from_torch_name(a.attr.id.as_str()).is_some())
}

/// How many chain values `expr` reads, when it is built only of elementwise operations on chain
/// values and literal scalars (None otherwise). Casts to something other than a dtype literal
/// are accepted only when `proven` says the argument is the site's own proven dtype.
fn elementwise_count(
    expr: &Expr,
    is_chain: &dyn Fn(&Expr) -> bool,
    proven: &dyn Fn(&Expr) -> bool,
) -> Option<usize> {
    if is_chain(expr) {
        return Some(1);
    }
    if is_scalar_literal(expr) {
        return Some(0);
    }
    match expr {
        Expr::BinOp(b) if b.op != Operator::MatMult => Some(
            elementwise_count(&b.left, is_chain, proven)?
                + elementwise_count(&b.right, is_chain, proven)?,
        ),
        Expr::UnaryOp(u) if u.op != UnaryOp::Not => elementwise_count(&u.operand, is_chain, proven),
        Expr::Compare(c)
            if c.ops.len() == 1
                && !matches!(
                    c.ops[0],
                    CmpOp::In | CmpOp::NotIn | CmpOp::Is | CmpOp::IsNot
                ) =>
        {
            let mut n = elementwise_count(&c.left, is_chain, proven)?;
            for comparator in &c.comparators {
                n += elementwise_count(comparator, is_chain, proven)?;
            }
            Some(n)
        }
        Expr::Call(call) => {
            let Expr::Attribute(method) = &*call.func else {
                return None;
            };
            let n = elementwise_count(&method.value, is_chain, proven).filter(|n| *n > 0)?;
            let name = method.attr.id.as_str();
            let args = &call.arguments.args;
            let no_args = args.is_empty() && call.arguments.keywords.is_empty();
            if DType::from_cast_method(name).is_some() || UNARY_ELEMENTWISE.contains(&name) {
                return no_args.then_some(n);
            }
            if matches!(name, "to" | "type") {
                let [arg] = args.as_ref() else { return None };
                if !call.arguments.keywords.is_empty() {
                    return None;
                }
                return (is_dtype_literal(arg) || proven(arg)).then_some(n);
            }
            if BINARY_ELEMENTWISE.contains(&name) {
                let mut total = n;
                for arg in args {
                    total += elementwise_count(arg, is_chain, proven)?;
                }
                for kw in &call.arguments.keywords {
                    total += elementwise_count(&kw.value, is_chain, proven)?;
                }
                return Some(total);
            }
            None
        }
        _ => None,
    }
}

/// The operand an expression's result is computed from first: the receiver of a method, the
/// left operand of an operator (the right one when the left is a scalar), the operand of a
/// unary operator.
fn spine(expr: &Expr) -> Option<&Expr> {
    match expr {
        Expr::Name(_) => Some(expr),
        Expr::Call(c) => match &*c.func {
            Expr::Attribute(a) => spine(&a.value),
            _ => None,
        },
        Expr::BinOp(b) if is_scalar_literal(&b.left) => spine(&b.right),
        Expr::BinOp(b) => spine(&b.left),
        Expr::UnaryOp(u) => spine(&u.operand),
        Expr::Compare(c) if is_scalar_literal(&c.left) => c.comparators.first().and_then(spine),
        Expr::Compare(c) => spine(&c.left),
        _ => None,
    }
}

fn find_expr(expr: &Expr, range: TextRange) -> Option<&Expr> {
    struct Finder<'a> {
        range: TextRange,
        found: Option<&'a Expr>,
    }
    impl<'a> Visitor<'a> for Finder<'a> {
        fn visit_expr(&mut self, expr: &'a Expr) {
            if self.found.is_none() && expr.range() == self.range && matches!(expr, Expr::Call(_)) {
                self.found = Some(expr);
            }
            visitor::walk_expr(self, expr);
        }
    }
    let mut finder = Finder { range, found: None };
    finder.visit_expr(expr);
    finder.found
}

/// Every name an expression or statement reads or writes.
#[derive(Default)]
struct Names {
    all: HashSet<String>,
    stored: HashSet<String>,
}

impl<'a> Visitor<'a> for Names {
    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Name(n) = expr {
            self.all.insert(n.id.to_string());
            if n.ctx == ExprContext::Store {
                self.stored.insert(n.id.to_string());
            }
        }
        visitor::walk_expr(self, expr);
    }
}

fn mentioned_names(stmt: &Stmt) -> HashSet<String> {
    let mut names = Names::default();
    names.visit_stmt(stmt);
    names.all
}

pub(super) fn stored_names(stmt: &Stmt) -> HashSet<String> {
    let mut names = Names::default();
    names.visit_stmt(stmt);
    let mut stored = names.stored;
    // `x += 1` stores through its target too.
    if let Stmt::AugAssign(a) = stmt
        && let Expr::Name(n) = &*a.target
    {
        stored.insert(n.id.to_string());
    }
    stored
}

/// Reads of the chain's names, each with whether it is a broadcasting use of the chain's end
/// name.
struct Loads<'n> {
    names: &'n HashSet<String>,
    end: Option<&'n str>,
    /// Ranges of reads of the end name that sit where a broadcast view reads the same.
    broadcasting: Vec<TextRange>,
    found: Vec<(String, TextRange, bool)>,
}

impl<'n> Loads<'n> {
    fn new(names: &'n HashSet<String>, end: Option<&'n str>) -> Self {
        Self {
            names,
            end,
            broadcasting: Vec::new(),
            found: Vec::new(),
        }
    }

    fn end_name(&self, expr: &Expr) -> bool {
        matches!(expr, Expr::Name(n) if Some(n.id.as_str()) == self.end)
    }
}

impl<'a> Visitor<'a> for Loads<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        // A nested function or class has its own names.
        if !matches!(stmt, Stmt::FunctionDef(_) | Stmt::ClassDef(_)) {
            visitor::walk_stmt(self, stmt);
        }
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::BinOp(b) if b.op != Operator::MatMult => {
                for side in [&*b.left, &*b.right] {
                    if self.end_name(side) {
                        self.broadcasting.push(side.range());
                    }
                }
            }
            Expr::Compare(c) => {
                for side in std::iter::once(&*c.left).chain(c.comparators.iter()) {
                    if self.end_name(side) {
                        self.broadcasting.push(side.range());
                    }
                }
            }
            Expr::Call(call) => {
                let mask_arg = match &*call.func {
                    Expr::Attribute(a) if a.attr.id.as_str() == "masked_fill" => {
                        !self.end_name(&a.value)
                    }
                    Expr::Attribute(a) if a.attr.id.as_str() == "where" => {
                        matches!(&*a.value, Expr::Name(m) if m.id.as_str() == "torch")
                    }
                    _ => false,
                };
                if mask_arg
                    && let Some(first) = call.arguments.args.first()
                    && self.end_name(first)
                {
                    self.broadcasting.push(first.range());
                }
            }
            Expr::Name(n) if n.ctx == ExprContext::Load && self.names.contains(n.id.as_str()) => {
                let broadcast = self.broadcasting.contains(&n.range);
                self.found.push((n.id.to_string(), n.range, broadcast));
            }
            _ => {}
        }
        visitor::walk_expr(self, expr);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How many reads of `m` the value of `x = <code>` makes, if it is an elementwise chain
    /// link (casts to `dtype` count as proven).
    fn link(code: &str) -> Option<usize> {
        let parsed = parse_module(&format!("x = {code}\n"), false);
        let (_, value) = parsed.body.first().and_then(link_parts)?;
        let is_chain = |e: &Expr| matches!(e, Expr::Name(n) if n.id.as_str() == "m");
        let proven = |e: &Expr| matches!(e, Expr::Name(n) if n.id.as_str() == "dtype");
        elementwise_count(value, &is_chain, &proven)
    }

    #[test]
    fn elementwise_links() {
        assert_eq!(link("m"), Some(1));
        assert_eq!(link("(1.0 - m) * torch.finfo(dtype).min"), Some(1));
        assert_eq!(
            link("m.masked_fill(m.to(torch.bool), float('-inf'))"),
            Some(2)
        );
        assert_eq!(link("~m.bool()"), Some(1));
        assert_eq!(link("m.to(dtype) == 0"), Some(1));
        assert_eq!(link("m * m"), Some(2));
        assert_eq!(link("-m.exp()"), Some(1));
    }

    #[test]
    fn not_elementwise_links() {
        // Another tensor, a non-literal scalar, a device move, an unproven cast, a reduction,
        // a matrix product, a function call, `not`, membership.
        for code in [
            "m & other",
            "m * self.scale",
            "m.to(device)",
            "m.to(other_dtype)",
            "m.sum(-1)",
            "m @ m",
            "f(m)",
            "not m",
            "m in s",
            "m.masked_fill(other, 0.0)",
            "m.to(torch.bool, non_blocking=True)",
        ] {
            assert_eq!(link(code), None, "{code}");
        }
        assert_eq!(link("1.0 * 2"), Some(0));
    }

    #[test]
    fn spine_is_where_the_result_starts() {
        let parsed = parse_module("x = 1.0 - m.masked_fill(k, 0) * 2\n", false);
        let Some((_, value)) = parsed.body.first().and_then(link_parts) else {
            panic!("not a link");
        };
        let found = spine(value).map(|e| e.range());
        assert_eq!(found, Some(TextRange::new(10.into(), 11.into())));
    }
}
