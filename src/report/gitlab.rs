//! `gitlab`: a GitLab code quality report (a JSON array of Code Climate issues).
//!
//! The fingerprint identifies a finding across runs: it hashes the rule code, the path, the text
//! of the sink's line (trimmed) and the finding's index among identical triples, never the line
//! number, so edits elsewhere in the file do not turn a finding into a new one.

use std::collections::HashMap;
use std::io::{self, Write};

use serde::Serialize;

use super::{diagnostics, file_span, portable_path, sink_line};
use crate::diagnostic::Level;
use crate::model::LintResult;

#[derive(Serialize)]
struct Issue<'a> {
    description: String,
    check_name: &'a str,
    fingerprint: String,
    severity: &'static str,
    location: Location,
}

#[derive(Serialize)]
struct Location {
    path: String,
    lines: Lines,
}

#[derive(Serialize)]
struct Lines {
    begin: usize,
    end: usize,
}

/// GitLab's code-quality severity: `major` for an error (it fails `check`), `minor` for a
/// warning (the merge request widget still lists it, below the majors).
fn severity(level: Level) -> &'static str {
    match level {
        Level::Error => "major",
        Level::Warning => "minor",
    }
}

pub fn write(out: &mut dyn Write, result: &LintResult) -> io::Result<()> {
    let issues: Vec<Issue> = diagnostics(result)
        .zip(fingerprints(result))
        .map(|((_, d), fingerprint)| {
            // A notebook's finding is on the lines of the `.ipynb` that hold the cell's source.
            let (start, end) = file_span(d);
            let cell = d
                .cell
                .map(|_| format!(" at {}", d.place()))
                .unwrap_or_default();
            Issue {
                description: format!("{} ({}): {}{cell}", d.rule.code, d.rule.name, d.message),
                check_name: d.rule.code,
                fingerprint,
                severity: severity(d.level),
                location: Location {
                    path: portable_path(&d.file),
                    lines: Lines {
                        begin: start.row,
                        end: end.row.max(start.row),
                    },
                },
            }
        })
        .collect();
    serde_json::to_writer_pretty(&mut *out, &issues).map_err(io::Error::other)?;
    writeln!(out)
}

/// One fingerprint per diagnostic, in the order of [`diagnostics`].
pub(super) fn fingerprints(result: &LintResult) -> Vec<String> {
    let mut seen: HashMap<(&str, String, &str), u64> = HashMap::new();
    diagnostics(result)
        .map(|(report, d)| {
            let path = portable_path(&d.file);
            let line = sink_line(result, report, d).unwrap_or_default().trim();
            let index = seen.entry((d.rule.code, path.clone(), line)).or_insert(0);
            let mut hash = Fnv1a::new();
            for part in [d.rule.code.as_bytes(), path.as_bytes(), line.as_bytes()] {
                hash.write(part);
                hash.write(&[0]);
            }
            hash.write(&index.to_le_bytes());
            *index += 1;
            format!("{:016x}", hash.0)
        })
        .collect()
}

/// FNV-1a, 64 bits: stable across runs, platforms and Rust versions (unlike `DefaultHasher`).
struct Fnv1a(u64);

impl Fnv1a {
    fn new() -> Self {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Fnv1a;

    #[test]
    fn fnv1a_matches_the_reference_vectors() {
        let hash = |s: &str| {
            let mut h = Fnv1a::new();
            h.write(s.as_bytes());
            h.0
        };
        assert_eq!(hash(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(hash("a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(hash("foobar"), 0x8594_4171_f739_67e8);
    }
}
