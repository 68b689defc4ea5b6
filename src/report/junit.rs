//! `junit`: JUnit XML, one test suite per linted file and one failing test case per diagnostic;
//! a file without diagnostics gets one passing test case.

use std::fmt::Write as _;
use std::io::{self, Write};

use super::{count, portable_path};
use crate::model::LintResult;

pub fn write(out: &mut dyn Write, result: &LintResult) -> io::Result<()> {
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let failures = count(result);
    let tests: usize = result
        .reports
        .iter()
        .map(|r| r.diagnostics.len().max(1))
        .sum();
    let _ = writeln!(
        xml,
        "<testsuites name=\"oomlint\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\">"
    );
    for report in &result.reports {
        let path = escape(&portable_path(&report.display));
        let n = report.diagnostics.len();
        let _ = writeln!(
            xml,
            "  <testsuite name=\"{path}\" tests=\"{}\" failures=\"{n}\" errors=\"0\" skipped=\"0\">",
            n.max(1)
        );
        if n == 0 {
            let _ = writeln!(
                xml,
                "    <testcase name=\"No errors found\" classname=\"{path}\" file=\"{path}\"/>"
            );
        }
        for d in &report.diagnostics {
            let file = escape(&portable_path(&d.file));
            let (row, column) = (d.location.row, d.location.column);
            let _ = writeln!(
                xml,
                "    <testcase name=\"{code} ({name}) at {file}:{row}:{column}\" classname=\"{path}\" \
                 file=\"{file}\" line=\"{row}\">",
                code = escape(d.rule.code),
                name = escape(d.rule.name),
            );
            let mut body = format!(
                "{}:{row}:{column}: {} {}",
                portable_path(&d.file),
                d.rule.code,
                d.message
            );
            for label in &d.labels {
                let _ = write!(
                    body,
                    "\n  {}:{}:{}: {}",
                    portable_path(&label.file),
                    label.location.row,
                    label.location.column,
                    label.text
                );
            }
            if let Some(help) = &d.help {
                let _ = write!(body, "\nhelp: {help}");
            }
            for note in &d.notes {
                let _ = write!(body, "\nnote: {note}");
            }
            let _ = writeln!(
                xml,
                "      <failure message=\"{}\" type=\"{}\">{}</failure>",
                escape(&d.message),
                escape(d.rule.code),
                escape(&body)
            );
            xml.push_str("    </testcase>\n");
        }
        xml.push_str("  </testsuite>\n");
    }
    xml.push_str("</testsuites>\n");
    out.write_all(xml.as_bytes())
}

/// Escapes text for an attribute or element; characters XML 1.0 forbids become U+FFFD, and
/// line breaks in attributes are kept as character references.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c if is_xml_char(c) => out.push(c),
            _ => out.push('\u{FFFD}'),
        }
    }
    out
}

fn is_xml_char(c: char) -> bool {
    matches!(c, '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escapes_markup_and_forbidden_characters() {
        assert_eq!(escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
        assert_eq!(escape("x\u{1}y\nz"), "x\u{FFFD}y&#10;z");
    }
}
