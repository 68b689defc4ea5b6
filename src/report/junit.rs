//! `junit`: JUnit XML, one test suite per linted file and one failing test case per diagnostic;
//! a file without diagnostics gets one passing test case.

use std::fmt::Write as _;
use std::io::{self, Write};

use super::{count, portable_path};
use crate::fmt::xml_escape;
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
        let path = xml_escape(&portable_path(&report.display));
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
            let file = xml_escape(&portable_path(&d.file));
            let (row, column) = (d.location.row, d.location.column);
            let _ = writeln!(
                xml,
                "    <testcase name=\"{code} ({name}) at {file}:{row}:{column}\" classname=\"{path}\" \
                 file=\"{file}\" line=\"{row}\">",
                code = xml_escape(d.rule.code),
                name = xml_escape(d.rule.name),
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
                xml_escape(&d.message),
                xml_escape(d.rule.code),
                xml_escape(&body)
            );
            xml.push_str("    </testcase>\n");
        }
        xml.push_str("  </testsuite>\n");
    }
    xml.push_str("</testsuites>\n");
    out.write_all(xml.as_bytes())
}
