//! Applying edits to a text: fixes whose edits touch an edit already taken are left for the next
//! round, so no two overlapping fixes are ever applied together.

use crate::diagnostic::{Edit, Fix};
use crate::source::{TextRange, TextSize};
use std::collections::BTreeSet;

/// Closed intervals: two edits that touch (an insertion at the end of a deletion) also conflict,
/// since their order would be ambiguous.
fn conflicts(a: TextRange, b: TextRange) -> bool {
    a.start() <= b.end() && b.start() <= a.end()
}

/// The edits one round applies: fixes in order of their first edit, skipping any fix that
/// conflicts with an edit already taken (or whose own edits overlap).
///
/// Taken edits never overlap, so sorted by start their ends rise too: the last one starting at or
/// before an edit's end is the only one that can reach it. That keeps a file with tens of
/// thousands of fixes linear-logarithmic instead of quadratic.
pub fn selected_edits<'f>(fixes: &[&'f Fix]) -> (Vec<&'f Edit>, usize) {
    let mut ordered: Vec<&Fix> = fixes
        .iter()
        .copied()
        .filter(|f| !f.edits.is_empty())
        .collect();
    ordered.sort_by_key(|f| f.edits.iter().map(|e| e.range.start()).min());
    let mut taken: Vec<&Edit> = Vec::new();
    let mut taken_ranges: BTreeSet<(TextSize, TextSize)> = BTreeSet::new();
    let mut count = 0;
    for fix in ordered {
        let clash = fix.edits.iter().any(|e| {
            taken_ranges
                .range(..=(e.range.end(), TextSize::new(u32::MAX)))
                .next_back()
                .is_some_and(|&(start, end)| conflicts(e.range, TextRange::new(start, end)))
        });
        if !clash && !overlaps_itself(fix) {
            taken.extend(fix.edits.iter());
            taken_ranges.extend(fix.edits.iter().map(|e| (e.range.start(), e.range.end())));
            count += 1;
        }
    }
    (taken, count)
}

/// True when two edits of one fix overlap (touching is fine: a fix may delete a line and insert
/// at its end).
fn overlaps_itself(fix: &Fix) -> bool {
    let mut ranges: Vec<TextRange> = fix.edits.iter().map(|e| e.range).collect();
    ranges.sort_by_key(|r| (r.start(), r.end()));
    ranges.windows(2).any(|w| w[0].end() > w[1].start())
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
            cell: None,
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
