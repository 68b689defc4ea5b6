//! What code actions need, computed when a document is linted: the fix as LSP edits, and the
//! edit that silences a finding with `# noqa`. Also the `# noqa` hover.

use lsp_types::{Position, Range, TextEdit};
use serde::{Deserialize, Serialize};

use super::position::LineIndex16;
use crate::diagnostic::{Applicability, Diagnostic};
use crate::model::FileIndex;
use crate::source::{self, TextRange, TextSize};

/// The `data` of a published diagnostic.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct DiagnosticData {
    pub code: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<FixData>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub noqa: Option<TextEdit>,
    /// The hover over the finding: its size, each dim's value and basis (kept here, not sent).
    #[serde(skip)]
    pub hover: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct FixData {
    /// `Apply ... (safe)`.
    pub title: String,
    /// `safe`, `unsafe` or `display-only`.
    pub applicability: String,
    pub edits: Vec<TextEdit>,
}

pub fn applicability_name(a: Applicability) -> &'static str {
    match a {
        Applicability::Safe => "safe",
        Applicability::Unsafe => "unsafe",
        Applicability::DisplayOnly => "display-only",
    }
}

pub fn fix_data(d: &Diagnostic, index: &LineIndex16) -> Option<FixData> {
    let fix = d.fix.as_ref()?;
    let applicability = applicability_name(fix.applicability);
    Some(FixData {
        title: format!("{} ({applicability})", fix.message),
        applicability: applicability.to_string(),
        edits: fix
            .edits
            .iter()
            .map(|e| TextEdit::new(index.range(e.range), e.content.clone()))
            .collect(),
    })
}

/// The edit that adds `code` to a `# noqa` of the statement (rows are 1-based, inclusive): an
/// existing `# noqa: A, B` on one of its rows gets `, CODE`; otherwise ` # noqa: CODE` goes at
/// the end of the statement's first line, or of its last one when the first ends inside a string.
pub fn noqa_edit(
    text: &str,
    index: &LineIndex16,
    file: &FileIndex,
    code: &str,
    rows: (usize, usize),
) -> Option<TextEdit> {
    let comments = &file.comments;
    let (first, last) = (rows.0.max(1), rows.1.max(rows.0).max(1));
    // Extend an existing `# noqa: ...` list.
    for range in comments {
        let row = index.position(usize::from(range.start())).line as usize + 1;
        if row < first || row > last {
            continue;
        }
        if let Some(at) = noqa_list_end(&text[*range]) {
            let offset = usize::from(range.start()) + at;
            let p = index.position(offset);
            return Some(TextEdit::new(Range::new(p, p), format!(", {code}")));
        }
    }
    let comment_rows: Vec<usize> = comments
        .iter()
        .map(|r| index.position(usize::from(r.start())).line as usize + 1)
        .collect();
    for row in [first, last] {
        let (_, end) = index.line_bounds(row - 1);
        let insert = format!("  # noqa: {code}");
        let insert = if comment_rows.contains(&row) {
            // A comment already ends the line: another `#` part after it.
            insert.trim_start().to_string().replace("# noqa", " # noqa")
        } else {
            insert
        };
        // The new comment must be a comment (not text inside a multi-line string).
        let inside_token = file
            .multiline_tokens
            .iter()
            .any(|t| usize::from(t.start()) < end && end < usize::from(t.end()));
        if !inside_token {
            let p = index.position(end);
            return Some(TextEdit::new(Range::new(p, p), insert));
        }
    }
    None
}

/// In a comment with `noqa: CODES` (not `oomlint: noqa`), the byte offset just past the last code.
fn noqa_list_end(comment: &str) -> Option<usize> {
    let mut offset = 0;
    for part in comment.split('#') {
        let part_start = offset;
        offset += part.len() + 1;
        let trimmed = part.trim_start();
        let lead = part.len() - trimmed.len();
        if trimmed.len() < 4 || !trimmed[..4].eq_ignore_ascii_case("noqa") {
            continue;
        }
        let after = &trimmed[4..];
        let colon = after.trim_start();
        let Some(list) = colon.strip_prefix(':') else {
            continue;
        };
        let list_start = part_start + lead + 4 + (after.len() - colon.len()) + 1;
        let mut end = None;
        let mut pos = 0;
        for word in list.split(|c: char| c == ',' || c.is_whitespace()) {
            let word_start = pos;
            pos += word.len() + 1;
            if word.is_empty() {
                continue;
            }
            if source::parse_codes(word).is_empty() {
                break;
            }
            end = Some(list_start + word_start + word.len());
        }
        if end.is_some() {
            return end;
        }
    }
    None
}

/// The rule code under `offset` when it sits in a suppression comment (`# noqa: OOM101`,
/// `# oomlint: ignore[OOM101]`, `# oomlint: noqa: OOM101`), with its byte range.
pub fn code_at(text: &str, comments: &[TextRange], offset: usize) -> Option<(String, TextRange)> {
    let comment = comments
        .iter()
        .find(|r| usize::from(r.start()) <= offset && offset <= usize::from(r.end()))?;
    let start = usize::from(comment.start());
    let body = &text[*comment];
    let lower = body.to_ascii_lowercase();
    if !lower.contains("noqa") && !lower.contains("oomlint") {
        return None;
    }
    let rel = offset - start;
    let is_word = |c: char| c.is_ascii_alphanumeric();
    let word_start = body[..rel]
        .rfind(|c: char| !is_word(c))
        .map_or(0, |i| i + 1);
    let word_end = body[rel..]
        .find(|c: char| !is_word(c))
        .map_or(body.len(), |i| rel + i);
    let word = &body[word_start..word_end];
    let rule = crate::rules::rule_by_code(word).filter(|r| r.code.eq_ignore_ascii_case(word))?;
    let range = TextRange::new(
        TextSize::new((start + word_start) as u32),
        TextSize::new((start + word_end) as u32),
    );
    Some((rule.code.to_string(), range))
}

/// Do two LSP ranges touch (an empty request range at a diagnostic's edge counts)?
pub fn overlaps(a: &Range, b: &Range) -> bool {
    let le = |x: &Position, y: &Position| (x.line, x.character) <= (y.line, y.character);
    le(&a.start, &b.end) && le(&b.start, &a.end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(text: &str, rows: (usize, usize)) -> String {
        let index = LineIndex16::new(text);
        let file = FileIndex::parse(text);
        let e = noqa_edit(text, &index, &file, "OOM101", rows).unwrap();
        let r = index.text_range(e.range);
        format!(
            "{}{}{}",
            &text[..usize::from(r.start())],
            e.new_text,
            &text[usize::from(r.end())..]
        )
    }

    #[test]
    fn noqa_placement() {
        assert_eq!(
            edit("x = a.bool()\n", (1, 1)),
            "x = a.bool()  # noqa: OOM101\n"
        );
        assert_eq!(
            edit("x = a.bool()  # noqa: E501 trailing words\n", (1, 1)),
            "x = a.bool()  # noqa: E501, OOM101 trailing words\n"
        );
        assert_eq!(
            edit("x = f(\n    a.bool(),  # NOQA:E501,OOM102\n)\n", (1, 3)),
            "x = f(\n    a.bool(),  # NOQA:E501,OOM102, OOM101\n)\n"
        );
        assert_eq!(
            edit("x = a.bool()  # type: ignore\n", (1, 1)),
            "x = a.bool()  # type: ignore # noqa: OOM101\n"
        );
        // The first line ends inside a string: the comment goes on the last line.
        assert_eq!(
            edit("x = g('''\n''', a.bool())\n", (1, 2)),
            "x = g('''\n''', a.bool())  # noqa: OOM101\n"
        );
        // ... also inside a string continued with a backslash.
        assert_eq!(
            edit("x = g('a\\\nb', a.bool())\n", (1, 2)),
            "x = g('a\\\nb', a.bool())  # noqa: OOM101\n"
        );
        // A file-level directive is not extended.
        assert_eq!(
            edit("x = a.bool()  # oomlint: noqa: OOM102\n", (1, 1)),
            "x = a.bool()  # oomlint: noqa: OOM102 # noqa: OOM101\n"
        );
    }

    #[test]
    fn hover_codes() {
        let text = "x = 1  # noqa: OOM101, oom104\ny = 2  # OOM101\n";
        let comments = source::parse_module(text, false).comments;
        let at = text.find("M101").unwrap();
        let (code, range) = code_at(text, &comments, at).unwrap();
        assert_eq!(code, "OOM101");
        assert_eq!(&text[range], "OOM101");
        let (code, _) = code_at(text, &comments, text.find("oom104").unwrap() + 6).unwrap();
        assert_eq!(code, "OOM104");
        assert!(code_at(text, &comments, text.rfind("OOM101").unwrap()).is_none());
        assert!(code_at(text, &comments, 2).is_none());
    }
}
