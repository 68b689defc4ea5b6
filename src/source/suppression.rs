//! Suppression comments: `# noqa`, `# noqa: OOM101`, `# oomlint: ignore[OOM101]` on a line of the
//! reported statement, and file-level `# oomlint: noqa` / `# oomlint: noqa: OOM101`.

use std::collections::HashMap;

use super::{Lines, TextRange};

#[derive(Default, Debug)]
struct LineRule {
    all: bool,
    codes: Vec<String>,
}

/// The suppression comments of one file.
#[derive(Default, Debug)]
pub struct Suppressions {
    file_all: bool,
    file_codes: Vec<String>,
    lines: HashMap<usize, LineRule>,
}

impl Suppressions {
    pub fn from_comments(text: &str, lines: &Lines, comments: &[TextRange]) -> Self {
        let mut out = Suppressions::default();
        for range in comments {
            let comment = &text[*range];
            let row = lines.row(range.start());
            // A comment may hold several directives: `# type: ignore  # noqa: OOM101`.
            for part in comment.split('#').map(str::trim).filter(|p| !p.is_empty()) {
                out.add_directive(part, row);
            }
        }
        out
    }

    fn add_directive(&mut self, part: &str, row: usize) {
        let lower = part.to_ascii_lowercase();
        if let Some(rest) = strip_word(&lower, "oomlint:") {
            let rest = rest.trim_start();
            let rest_orig = &part[part.len() - rest.len()..];
            if let Some(after) = strip_word(rest, "noqa") {
                // File-level.
                let after_orig = &rest_orig[rest_orig.len() - after.len()..];
                match after_orig.trim_start().strip_prefix(':') {
                    Some(codes) => self.file_codes.extend(parse_codes(codes)),
                    None if after.trim().is_empty() => self.file_all = true,
                    None => {}
                }
            } else if let Some(after) = strip_word(rest, "ignore") {
                let after_orig = rest_orig[rest_orig.len() - after.len()..].trim_start();
                let entry = self.lines.entry(row).or_default();
                match after_orig.strip_prefix('[') {
                    Some(inner) => {
                        let inner = inner.split(']').next().unwrap_or("");
                        entry.codes.extend(parse_codes(inner));
                    }
                    None if after_orig.is_empty() => entry.all = true,
                    None => {}
                }
            }
        } else if let Some(after) = strip_word(&lower, "noqa") {
            let after_orig = part[part.len() - after.len()..].trim_start();
            let entry = self.lines.entry(row).or_default();
            match after_orig.strip_prefix(':') {
                Some(codes) => {
                    let codes = parse_codes(codes);
                    // `# noqa:` with nothing after it is a bare noqa, as in ruff.
                    if codes.is_empty() {
                        entry.all = true;
                    } else {
                        entry.codes.extend(codes);
                    }
                }
                None => entry.all = true,
            }
        }
    }

    /// Is `code` suppressed for a diagnostic whose statement spans `first_row..=last_row`?
    pub fn is_suppressed(&self, code: &str, first_row: usize, last_row: usize) -> bool {
        if self.file_all || self.file_codes.iter().any(|c| c == code) {
            return true;
        }
        (first_row..=last_row).any(|row| {
            self.lines
                .get(&row)
                .is_some_and(|rule| rule.all || rule.codes.iter().any(|c| c == code))
        })
    }

    /// The whole file is silenced (`# oomlint: noqa`).
    #[cfg(test)]
    pub fn silences_file(&self) -> bool {
        self.file_all
    }
}

/// `word` at the start of `text` (case already folded), followed by a non-word character.
fn strip_word<'a>(text: &'a str, word: &str) -> Option<&'a str> {
    let rest = text.strip_prefix(word)?;
    match rest.chars().next() {
        Some(c) if c.is_ascii_alphanumeric() || c == '_' || c == '-' => None,
        _ => Some(rest),
    }
}

/// Codes listed after a `noqa:` or inside `ignore[...]`: comma and/or space separated, upper-cased.
/// Parsing stops at the first word that is not a code (so trailing prose is ignored).
pub fn parse_codes(list: &str) -> Vec<String> {
    let mut codes = Vec::new();
    for word in list.split(|c: char| c == ',' || c.is_whitespace()) {
        if word.is_empty() {
            continue;
        }
        let is_code = word.len() >= 2
            && word.chars().all(|c| c.is_ascii_alphanumeric())
            && word.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && word.chars().any(|c| c.is_ascii_digit());
        if !is_code {
            break;
        }
        codes.push(word.to_ascii_uppercase());
    }
    codes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{Lines, parse_module};

    fn supp(src: &str) -> Suppressions {
        let parsed = parse_module(src, false);
        Suppressions::from_comments(src, &Lines::new(src), &parsed.comments)
    }

    #[test]
    fn line_directives() {
        let s = supp(
            "a = 1  # noqa\nb = 2  # noqa: OOM101, E501\nc = 3  # oomlint: ignore[OOM102]\nd = 4 # noqa: E501\n",
        );
        assert!(s.is_suppressed("OOM999", 1, 1));
        assert!(s.is_suppressed("OOM101", 2, 2));
        assert!(!s.is_suppressed("OOM102", 2, 2));
        assert!(s.is_suppressed("OOM102", 3, 3));
        assert!(!s.is_suppressed("OOM101", 3, 3));
        assert!(!s.is_suppressed("OOM101", 4, 4));
        assert!(s.is_suppressed("OOM101", 1, 4));
        assert!(!s.is_suppressed("OOM101", 5, 6));
    }

    #[test]
    fn file_directives() {
        let s = supp("# oomlint: noqa: OOM104\nx = 1\n");
        assert!(s.is_suppressed("OOM104", 2, 2));
        assert!(!s.is_suppressed("OOM101", 2, 2));
        assert!(supp("# oomlint: noqa\n").silences_file());
        // `noqa` inside other words is not a directive.
        assert!(!supp("x = 1  # noqaxyz\n").is_suppressed("OOM101", 1, 1));
        // Combined comments.
        assert!(supp("x = 1  # type: ignore  # noqa: OOM101\n").is_suppressed("OOM101", 1, 1));
    }
}
