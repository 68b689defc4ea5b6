//! What became of every enlargement the dataflow saw, for `oomlint sites`: the enlarger calls
//! themselves, and the conversions of an enlarged value that the analysis judged to do nothing
//! (so they never became a site). The rules add the fate of each site; together they answer
//! "why was this not flagged?".

use crate::analysis::{DType, EnlargeKind, Shape};
use crate::source::ast::{self, Expr, Stmt};
use crate::source::{Ranged, TextRange, TextSize, nested_blocks};

/// One enlarger call the dataflow evaluated (`m.expand(b, h, q, k)`, `x.repeat(n, 1)`).
#[derive(Clone, Debug)]
pub struct Enlargement {
    /// The enlarging step (from the method name, or the function call, to its closing paren).
    pub range: TextRange,
    pub kind: EnlargeKind,
    /// `expand`, `repeat`, ...
    pub op: String,
    /// The step's code, whitespace collapsed.
    pub code: String,
    /// The enlarged shape, when its rank is known.
    pub shape: Option<Shape>,
    /// The statement holding it (where its result is bound).
    pub stmt: TextRange,
    /// The call keeps the source's shape (`expand(*x.shape)` of that same `x`): nothing grew.
    pub same_shape: bool,
    /// Nothing grew because this count parameter is 1 at every call of the project.
    pub fixed_count: Option<String>,
}

/// A conversion of an enlarged value that the analysis found to be a no-op: no site is made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkippedConversion {
    /// The enlarging steps of the value converted.
    pub enlargers: Vec<TextRange>,
    /// The conversion.
    pub at: TextRange,
    pub why: SkipReason,
}

/// Why a conversion of an enlarged value makes no copy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SkipReason {
    /// A cast to the dtype the value already has (`.bool()` of a comparison).
    AlreadyDtype(DType),
    /// `.to(m.dtype)` of a value made from `m`, or with `dtype=m.dtype`.
    SameDtypeAs(String),
}

impl std::fmt::Display for SkipReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SkipReason::AlreadyDtype(d) => write!(f, "no-op: the value is already {}", d.name()),
            SkipReason::SameDtypeAs(sym) => {
                write!(f, "no-op: the value already has the dtype of `{sym}`")
            }
        }
    }
}

/// What happens to an enlargement's value when no conversion of it became a site.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NextUse {
    /// Passed to a call the analysis does not follow (`foo(x)`), at that call.
    PassedTo { callee: String, at: TextRange },
    /// Returned by the function.
    Returned { at: TextRange },
    /// Read again, but by nothing that writes a full-size result.
    ReadOnly,
    /// Never read after the statement that makes it.
    Unused,
    /// Read inside the expression that makes it (`x.expand(...).sum(-1)`, `a + x.expand(...)`),
    /// by what this says (`.sum`, `+`).
    ReadBy { consumer: String, at: TextRange },
    /// Not bound to a plain name and not read in its own statement.
    NotBound,
}

/// Where the value that `stmt` binds is next passed on, for an enlargement whose value became no
/// site: the first call after it (in the innermost function holding it) that takes the name as a
/// plain argument and is not a method of the value itself, else a `return` of it.
pub fn next_use(body: &[Stmt], stmt: TextRange, enlarger: TextRange, text: &str) -> NextUse {
    use crate::source::ast::visitor::{self, Visitor};

    if let Some(read) = read_in_place(body, stmt, enlarger, text) {
        return read;
    }
    let Some((scope, target)) = bound_name(body, stmt) else {
        return NextUse::NotBound;
    };
    struct Uses<'t> {
        name: String,
        after: TextSize,
        text: &'t str,
        read: bool,
        first: Option<NextUse>,
    }
    impl<'a> Visitor<'a> for Uses<'_> {
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            if self.first.is_none()
                && stmt.range().start() >= self.after
                && let Stmt::Return(r) = stmt
                && matches!(r.value.as_deref(), Some(Expr::Name(n)) if n.id.as_str() == self.name)
            {
                self.first = Some(NextUse::Returned { at: r.range() });
            }
            visitor::walk_stmt(self, stmt);
        }
        fn visit_expr(&mut self, expr: &'a Expr) {
            if expr.range().start() < self.after || self.first.is_some() {
                visitor::walk_expr(self, expr);
                return;
            }
            match expr {
                Expr::Name(n) if n.id.as_str() == self.name => self.read = true,
                Expr::Call(call) => {
                    let passes = call
                        .arguments
                        .args
                        .iter()
                        .chain(call.arguments.keywords.iter().map(|k| &k.value))
                        .any(|a| matches!(a, Expr::Name(n) if n.id.as_str() == self.name));
                    // `len(x)` reads a size, not the values.
                    let size_read = matches!(&*call.func, Expr::Name(f) if f.id.as_str() == "len");
                    if passes && !size_read {
                        let callee = self
                            .text
                            .get(call.func.range().to_std_range())
                            .unwrap_or("")
                            .split_whitespace()
                            .collect::<Vec<_>>()
                            .join(" ");
                        self.first = Some(NextUse::PassedTo {
                            callee,
                            at: call.range(),
                        });
                    }
                }
                _ => {}
            }
            visitor::walk_expr(self, expr);
        }
    }
    let mut uses = Uses {
        name: target,
        after: stmt.end(),
        text,
        read: false,
        first: None,
    };
    for s in scope {
        uses.visit_stmt(s);
    }
    match uses.first {
        Some(found) => found,
        None if uses.read => NextUse::ReadOnly,
        None => NextUse::Unused,
    }
}

/// What reads the enlarger's call inside its own statement: the expression just around the call
/// that ends where `enlarger` ends (`.sum` of `m.expand(...).sum(-1)`, `+` of `a + m.expand(..)`,
/// `foo` of `foo(m.expand(...))`), or the `return` that hands it out as it is.
fn read_in_place(
    body: &[Stmt],
    stmt: TextRange,
    enlarger: TextRange,
    text: &str,
) -> Option<NextUse> {
    use crate::source::ast::visitor::{self, Visitor};

    struct Around<'t> {
        enlarger: TextRange,
        text: &'t str,
        /// The innermost call ending at the enlarger, once seen, and what reads it.
        call: Option<TextRange>,
        found: Option<NextUse>,
        stack: Vec<(TextRange, String)>,
    }
    impl<'a> Visitor<'a> for Around<'_> {
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            // `return m.expand(...)`: the enlarger's call is the value returned, as it is.
            if let Stmt::Return(r) = stmt
                && let Some(Expr::Call(c)) = r.value.as_deref()
                && c.range().end() == self.enlarger.end()
                && c.func.range().contains(self.enlarger.start())
            {
                self.found = Some(NextUse::Returned { at: r.range() });
                return;
            }
            visitor::walk_stmt(self, stmt);
        }
        fn visit_expr(&mut self, expr: &'a Expr) {
            if self.found.is_some() || !expr.range().contains_range(self.enlarger) {
                return;
            }
            if self.call.is_none()
                && matches!(expr, Expr::Call(_))
                && expr.range().end() == self.enlarger.end()
            {
                self.call = Some(expr.range());
                // The innermost enclosing node that reads it.
                let code = |r: TextRange| {
                    self.text
                        .get(r.to_std_range())
                        .unwrap_or("")
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                if let Some((at, what)) = self.stack.last() {
                    self.found = Some(match what.strip_prefix("call:") {
                        Some(callee) => NextUse::PassedTo {
                            callee: callee.split_whitespace().collect::<Vec<_>>().join(" "),
                            at: *at,
                        },
                        None => NextUse::ReadBy {
                            consumer: if what.is_empty() {
                                code(*at)
                            } else {
                                what.clone()
                            },
                            at: *at,
                        },
                    });
                }
                return;
            }
            let what = match expr {
                Expr::Attribute(a) => format!(".{}", a.attr.id),
                Expr::BinOp(b) => b.op.as_str().to_string(),
                Expr::Compare(_) => "a comparison".to_string(),
                Expr::Subscript(_) => "indexing".to_string(),
                Expr::Call(c) if !c.func.range().contains_range(self.enlarger) => format!(
                    "call:{}",
                    self.text.get(c.func.range().to_std_range()).unwrap_or("")
                ),
                _ => String::new(),
            };
            // A method call on the value reads it through its attribute, already on the stack.
            let skip =
                matches!(expr, Expr::Call(c) if c.func.range().contains_range(self.enlarger));
            if !skip {
                self.stack.push((expr.range(), what));
            }
            visitor::walk_expr(self, expr);
            if !skip {
                self.stack.pop();
            }
        }
    }
    let holder = find_stmt(body, stmt)?;
    let mut around = Around {
        enlarger,
        text,
        call: None,
        found: None,
        stack: Vec::new(),
    };
    around.visit_stmt(holder);
    around.found
}

/// The statement with exactly this range, at any depth.
fn find_stmt(body: &[Stmt], range: TextRange) -> Option<&Stmt> {
    use crate::source::ast::statement_visitor::{StatementVisitor, walk_stmt};
    struct Find<'a> {
        range: TextRange,
        found: Option<&'a Stmt>,
    }
    impl<'a> StatementVisitor<'a> for Find<'a> {
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            if self.found.is_none() && stmt.range().contains_range(self.range) {
                if stmt.range() == self.range {
                    self.found = Some(stmt);
                } else {
                    walk_stmt(self, stmt);
                }
            }
        }
    }
    let mut find = Find { range, found: None };
    find.visit_body(body);
    find.found
}

/// The statements of the innermost function holding `stmt`, and the plain name `stmt` binds.
fn bound_name(body: &[Stmt], stmt: TextRange) -> Option<(&[Stmt], String)> {
    let mut scope = body;
    let mut stmts = body;
    'descend: loop {
        for s in stmts {
            if !s.range().contains_range(stmt) {
                continue;
            }
            if s.range() == stmt {
                let target = match s {
                    Stmt::Assign(a) => match a.targets.as_slice() {
                        [Expr::Name(n)] => n.id.to_string(),
                        _ => return None,
                    },
                    Stmt::AnnAssign(a) => match &*a.target {
                        Expr::Name(n) => n.id.to_string(),
                        _ => return None,
                    },
                    _ => return None,
                };
                return Some((scope, target));
            }
            let children: Vec<&[Stmt]> = match s {
                Stmt::FunctionDef(f) => {
                    scope = &f.body;
                    vec![&f.body]
                }
                Stmt::ClassDef(c) => vec![&c.body],
                other => nested_blocks(other),
            };
            if let Some(inner) = children.into_iter().find(|b| {
                b.first().is_some_and(|f| f.range().start() <= stmt.start())
                    && b.last().is_some_and(|l| l.range().end() >= stmt.end())
            }) {
                stmts = inner;
                continue 'descend;
            }
            return None;
        }
        return None;
    }
}
