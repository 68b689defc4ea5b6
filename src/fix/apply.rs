//! Applying edits to a text: fixes whose edits touch an edit already taken are left for the next
//! round, so no two overlapping fixes are ever applied together.

use crate::diagnostic::{Edit, Fix};
use crate::source::TextRange;

/// Closed intervals: two edits that touch (an insertion at the end of a deletion) also conflict,
/// since their order would be ambiguous.
fn conflicts(a: TextRange, b: TextRange) -> bool {
    a.start() <= b.end() && b.start() <= a.end()
}

/// The edits one round applies: fixes in order of their first edit, skipping any fix that
/// conflicts with an edit already taken.
pub fn selected_edits<'f>(fixes: &[&'f Fix]) -> (Vec<&'f Edit>, usize) {
    let mut ordered: Vec<&Fix> = fixes
        .iter()
        .copied()
        .filter(|f| !f.edits.is_empty())
        .collect();
    ordered.sort_by_key(|f| f.edits.iter().map(|e| e.range.start()).min());
    let mut taken: Vec<&Edit> = Vec::new();
    let mut count = 0;
    for fix in ordered {
        let clash = fix
            .edits
            .iter()
            .any(|e| taken.iter().any(|t| conflicts(e.range, t.range)));
        if !clash {
            taken.extend(fix.edits.iter());
            count += 1;
        }
    }
    (taken, count)
}

/// Applies every fix that conflicts with no fix taken before it (in order of position); returns
/// the new text and the number of fixes applied.
pub fn apply_fixes(text: &str, fixes: &[&Fix]) -> (String, usize) {
    let (taken, applied) = selected_edits(fixes);
    (apply_edits(text, &taken), applied)
}

/// Applies non-overlapping edits.
pub fn apply_edits(text: &str, edits: &[&Edit]) -> String {
    let mut sorted: Vec<&Edit> = edits.to_vec();
    sorted.sort_by_key(|e| (e.range.start(), e.range.end()));
    let mut out = String::with_capacity(text.len() + 64);
    let mut at = 0usize;
    for e in sorted {
        let start = e.range.start().to_usize().min(text.len());
        let end = e.range.end().to_usize().min(text.len());
        if start < at {
            continue;
        }
        out.push_str(&text[at..start]);
        out.push_str(&e.content);
        at = end;
    }
    out.push_str(&text[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Applicability;
    use crate::source::{Position, TextSize};

    fn e(start: u32, end: u32, content: &str) -> Edit {
        Edit {
            content: content.into(),
            range: TextRange::new(TextSize::new(start), TextSize::new(end)),
            location: Position { row: 0, column: 0 },
            end_location: Position { row: 0, column: 0 },
        }
    }

    fn fix(edits: Vec<Edit>) -> Fix {
        Fix {
            applicability: Applicability::Safe,
            message: String::new(),
            edits,
        }
    }

    #[test]
    fn overlapping_fixes_are_not_applied_together() {
        let a = fix(vec![e(0, 1, "X")]);
        let b = fix(vec![e(1, 2, "Y")]);
        let c = fix(vec![e(3, 4, "Z")]);
        let (out, n) = apply_fixes("abcd", &[&a, &b, &c]);
        assert_eq!(out, "XbcZ");
        assert_eq!(n, 2);
    }

    #[test]
    fn insertion_and_deletion() {
        let f = fix(vec![e(1, 1, ".bool()"), e(11, 18, "")]);
        let (out, n) = apply_fixes("m.expand(2).bool()", &[&f]);
        assert_eq!(n, 1);
        assert_eq!(out, "m.bool().expand(2)");
    }
}
