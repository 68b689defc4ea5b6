//! `junit`: JUnit XML, one test suite per linted file and one test case per diagnostic: an error
//! is a `<failure>`, a warning a `<skipped>` test case (JUnit has no warning; Jenkins, GitLab and
//! the GitHub test reporters list skipped cases apart, without failing the suite). A file
//! without diagnostics gets one passing test case.

use std::fmt::Write as _;
use std::io::{self, Write};

use super::{file_span, portable_path};
use crate::diagnostic::Level;
use crate::fmt::xml_escape;
use crate::model::LintResult;

pub fn write(out: &mut dyn Write, result: &LintResult) -> io::Result<()> {
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let all = || result.reports.iter().flat_map(|r| &r.diagnostics);
    let failures = all().filter(|d| d.level == Level::Error).count();
    let skipped = all().filter(|d| d.level == Level::Warning).count();
    let tests: usize = result
        .reports
        .iter()
        .map(|r| r.diagnostics.len().max(1))
        .sum();
    let _ = writeln!(
        xml,
        "<testsuites name=\"oomlint\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" \
         skipped=\"{skipped}\">"
    );
    for report in &result.reports {
        let path = xml_escape(&portable_path(&report.display));
        let n = report.diagnostics.len();
        let warned = report
            .diagnostics
            .iter()
            .filter(|d| d.level == Level::Warning)
            .count();
        let _ = writeln!(
            xml,
            "  <testsuite name=\"{path}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{warned}\">",
            n.max(1),
            n - warned
        );
        if n == 0 {
            let _ = writeln!(
                xml,
                "    <testcase name=\"No errors found\" classname=\"{path}\" file=\"{path}\"/>"
            );
        }
        for d in &report.diagnostics {
            let file = xml_escape(&portable_path(&d.file));
            let place = d.place();
            // `line` is a line of the file on disk (of the `.ipynb` text in a notebook).
            let line = file_span(d).0.row;
            let _ = writeln!(
                xml,
                "    <testcase name=\"{code} ({name}) at {file}:{place}\" classname=\"{path}\" \
                 file=\"{file}\" line=\"{line}\">",
                code = xml_escape(d.rule.code),
                name = xml_escape(d.rule.name),
            );
            let mut body = format!(
                "{}:{place}: {} {}",
                portable_path(&d.file),
                d.rule.code,
                d.message
            );
            for label in &d.labels {
                let _ = write!(
                    body,
                    "\n  {}:{}: {}",
                    portable_path(&label.file),
                    crate::diagnostic::place(label.cell.map(|c| c.cell), label.location),
                    label.text
                );
            }
            if let Some(help) = &d.help {
                let _ = write!(body, "\nhelp: {help}");
            }
            for note in &d.notes {
                let _ = write!(body, "\nnote: {note}");
            }
            let _ = match d.level {
                Level::Error => writeln!(
                    xml,
                    "      <failure message=\"{}\" type=\"{}\">{}</failure>",
                    xml_escape(&d.message),
                    xml_escape(d.rule.code),
                    xml_escape(&body)
                ),
                Level::Warning => writeln!(
                    xml,
                    "      <skipped message=\"warning: {}\">{}</skipped>",
                    xml_escape(&d.message),
                    xml_escape(&body)
                ),
            };
            xml.push_str("    </testcase>\n");
        }
        xml.push_str("  </testsuite>\n");
    }
    xml.push_str("</testsuites>\n");
    out.write_all(xml.as_bytes())
}
