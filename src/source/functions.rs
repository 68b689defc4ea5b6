//! The rows each function definition spans, from the syntax tree. A profiler's function-level
//! frame names only a function's first line (`co_firstlineno`); these rows say which lines are
//! that function's.

use ruff_python_ast::statement_visitor::{StatementVisitor, walk_stmt};
use ruff_python_ast::{Stmt, StmtFunctionDef};
use ruff_text_size::Ranged;

use super::{Lines, ParsedModule};

/// The 1-based rows of one function definition (`def` or `async def`, at any depth).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FunctionRows {
    /// The first row: the first decorator's, else the `def`'s (what Python reports as the
    /// function's first line).
    pub first: usize,
    /// The row of the `def` itself (its name).
    pub def: usize,
    /// The last row of the body.
    pub last: usize,
}

impl FunctionRows {
    /// Whether a frame that gives `row` as the function's first line means this function: the
    /// row of a decorator or of the `def`.
    pub fn starts_at(&self, row: usize) -> bool {
        (self.first..=self.def).contains(&row)
    }

    pub fn contains(&self, row: usize) -> bool {
        (self.first..=self.last).contains(&row)
    }
}

/// Every function definition of `parsed` (whose text `lines` indexes), in source order.
pub fn function_rows(parsed: &ParsedModule, lines: &Lines) -> Vec<FunctionRows> {
    let mut collect = Collect {
        lines,
        out: Vec::new(),
    };
    collect.visit_body(&parsed.body);
    collect.out
}

struct Collect<'l> {
    lines: &'l Lines,
    out: Vec<FunctionRows>,
}

impl<'a> StatementVisitor<'a> for Collect<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if let Stmt::FunctionDef(def) = stmt {
            self.out.push(rows_of(def, self.lines));
        }
        walk_stmt(self, stmt);
    }
}

fn rows_of(def: &StmtFunctionDef, lines: &Lines) -> FunctionRows {
    // The parser starts a decorated definition's range at its first decorator.
    FunctionRows {
        first: lines.row(def.range().start()),
        def: lines.row(def.name.range().start()),
        last: lines.row(def.range().end()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::parse_module;

    fn rows(text: &str) -> Vec<(usize, usize, usize)> {
        let parsed = parse_module(text, false);
        function_rows(&parsed, &Lines::new(text))
            .into_iter()
            .map(|f| (f.first, f.def, f.last))
            .collect()
    }

    #[test]
    fn definitions_at_every_depth() {
        let text = "\
class A:
    @staticmethod
    @other(
        1,
    )
    def f(
        x,
    ):
        if x:
            async def g():
                return 1
        return (
            x
        )

    # a comment after the body

def h(): return 2
";
        assert_eq!(rows(text), [(2, 6, 14), (10, 10, 11), (18, 18, 18)]);
        let f = function_rows(&parse_module(text, false), &Lines::new(text))[0];
        assert!(f.starts_at(2) && f.starts_at(3) && f.starts_at(6) && !f.starts_at(7));
        assert!(f.contains(14) && !f.contains(16));
    }
}
