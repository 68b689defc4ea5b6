//! The statement blocks nested in a compound statement that run in the scope of the statement
//! itself, for the passes that look at every statement of a function at any depth.

use ruff_python_ast::{self as ast, Stmt};

/// The bodies of `stmt` that belong to its own scope: the branches of `if`/`elif`/`else`, a
/// loop's body and `else`, a `with` body, every part of a `try`, and each `match` case. Nested
/// functions and classes are other scopes, so they give none; a simple statement gives none.
pub fn nested_blocks(stmt: &Stmt) -> Vec<&[Stmt]> {
    match stmt {
        Stmt::If(i) => std::iter::once(&i.body[..])
            .chain(i.elif_else_clauses.iter().map(|c| &c.body[..]))
            .collect(),
        Stmt::For(f) => vec![&f.body, &f.orelse],
        Stmt::While(w) => vec![&w.body, &w.orelse],
        Stmt::With(w) => vec![&w.body],
        Stmt::Try(t) => std::iter::once(&t.body[..])
            .chain(t.handlers.iter().map(|h| {
                let ast::ExceptHandler::ExceptHandler(h) = h;
                &h.body[..]
            }))
            .chain([&t.orelse[..], &t.finalbody[..]])
            .collect(),
        Stmt::Match(m) => m.cases.iter().map(|c| &c.body[..]).collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::parse_module;

    fn counts(text: &str) -> Vec<usize> {
        let module = parse_module(text, false);
        module
            .body
            .iter()
            .map(|s| nested_blocks(s).iter().map(|b| b.len()).sum())
            .collect()
    }

    #[test]
    fn every_branch_of_a_compound_statement_and_no_other_scope() {
        let text = "\
if a:\n    x = 1\nelif b:\n    x = 2\nelse:\n    x = 3\n\
for i in r:\n    y = i\nelse:\n    y = 0\n\
try:\n    z = 1\nexcept E:\n    z = 2\nelse:\n    z = 3\nfinally:\n    z = 4\n\
match v:\n    case 1:\n        w = 1\n    case _:\n        w = 2\n\
with o as f:\n    q = f\n\
def f():\n    inner = 1\n\
x = 5\n";
        assert_eq!(counts(text), vec![3, 2, 4, 2, 1, 0, 0]);
    }
}
