//! The parser facade. This is the only module that names ruff's parser crates, which are internal
//! crates of ruff with no stability promise: a future version bump should be a change here alone
//! (plus the AST shapes the analysis matches on, which it reaches through [`ast`]).

mod blocks;
mod functions;
pub mod notebook;
mod reading;
mod suppression;

pub use blocks::nested_blocks;
pub use functions::{FunctionRows, function_rows};
pub use reading::{DEFAULT_MAX_FILE_SIZE, ReadError, decode, read_source};
pub use ruff_python_ast as ast;
pub use ruff_text_size::{Ranged, TextRange, TextSize};
pub use suppression::{Suppressions, parse_codes};

use ruff_python_ast::token::TokenKind;
use ruff_source_file::LineIndex;

/// A 1-based row and column (columns count characters, as ruff's do).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct Position {
    pub row: usize,
    pub column: usize,
}

/// Maps byte offsets of one source text to rows and columns.
pub struct Lines {
    index: LineIndex,
}

impl Lines {
    pub fn new(text: &str) -> Self {
        Self {
            index: LineIndex::from_source_text(text),
        }
    }

    pub fn position(&self, text: &str, offset: TextSize) -> Position {
        let offset = offset.min(TextSize::of(text));
        let lc = self.index.line_column(offset, text);
        Position {
            row: lc.line.get(),
            column: lc.column.get(),
        }
    }

    /// The 1-based row that holds `offset`.
    pub fn row(&self, offset: TextSize) -> usize {
        self.index.line_index(offset).get()
    }

    /// Byte range of the 1-based `row`, without its line terminator.
    pub fn line_range(&self, row: usize, text: &str) -> TextRange {
        let one = ruff_source_file::OneIndexed::new(row.max(1))
            .unwrap_or(ruff_source_file::OneIndexed::MIN);
        self.index.line_range(one, text)
    }
}

/// A syntax error the parser recovered from.
#[derive(Clone, Debug)]
pub struct SyntaxError {
    pub range: TextRange,
    pub message: String,
}

/// One parsed module: its syntax tree, the errors the parser recovered from, and its comments.
pub struct ParsedModule {
    pub body: Vec<ast::Stmt>,
    pub syntax_errors: Vec<SyntaxError>,
    pub comments: Vec<TextRange>,
    /// Tokens that run over a line end (triple-quoted or continued strings): text inserted at
    /// such a line end would land inside them.
    pub multiline_tokens: Vec<TextRange>,
}

/// Parses `text` as a module (a stub when `is_stub`). Never fails: the parser recovers from syntax
/// errors and reports them in [`ParsedModule::syntax_errors`].
pub fn parse_module(text: &str, is_stub: bool) -> ParsedModule {
    let source_type = if is_stub {
        ast::PySourceType::Stub
    } else {
        ast::PySourceType::Python
    };
    let parsed = ruff_python_parser::parse_unchecked_source(text, source_type);
    let syntax_errors = parsed
        .errors()
        .iter()
        .map(|error| SyntaxError {
            range: error.location,
            message: error.error.to_string(),
        })
        .collect();
    // One pass over the tokens for both lists. Only string parts can hold a line break inside
    // one token (newline tokens end lines, they do not span them).
    let (mut comments, mut multiline_tokens) = (Vec::new(), Vec::new());
    for token in parsed.tokens().iter() {
        match token.kind() {
            TokenKind::Comment => comments.push(token.range()),
            TokenKind::String | TokenKind::FStringMiddle | TokenKind::TStringMiddle
                if memchr::memchr2(b'\n', b'\r', text[token.range()].as_bytes()).is_some() =>
            {
                multiline_tokens.push(token.range());
            }
            _ => {}
        }
    }
    let module = parsed.into_syntax();
    ParsedModule {
        body: module.body.into_iter().collect(),
        syntax_errors,
        comments,
        multiline_tokens,
    }
}

/// Whether `text` is one expression that a method call can follow without parentheses: a call,
/// a name, an attribute or a subscript (`torch.exp(x)` takes `.repeat(n)` as it is; `a + b`
/// needs `(a + b).repeat(n)`).
pub fn is_primary_expression(text: &str) -> bool {
    ruff_python_parser::parse_expression(text).is_ok_and(|parsed| {
        matches!(
            parsed.expr(),
            ast::Expr::Call(_)
                | ast::Expr::Name(_)
                | ast::Expr::Attribute(_)
                | ast::Expr::Subscript(_)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::is_primary_expression;

    #[test]
    fn a_method_call_follows_primaries_without_parentheses() {
        for primary in [
            "torch.exp(x)",
            "x",
            "self.mask",
            "m[:, None]",
            "torch.logical_not(\n    m\n)",
        ] {
            assert!(is_primary_expression(primary), "{primary}");
        }
        for needs_parens in [
            "a + b",
            "~m",
            "-x",
            "a if c else b",
            "x, y",
            "lambda: x",
            "a +",
        ] {
            assert!(!is_primary_expression(needs_parens), "{needs_parens}");
        }
    }
}
