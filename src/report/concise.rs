//! `concise`: one line per diagnostic, `path:line:col: CODE message`.

use std::io::{self, Write};

use crate::model::LintResult;

pub fn write(out: &mut dyn Write, result: &LintResult) -> io::Result<()> {
    for report in &result.reports {
        for d in &report.diagnostics {
            writeln!(
                out,
                "{}:{}:{}: {} {}",
                d.file, d.location.row, d.location.column, d.rule.code, d.message
            )?;
        }
    }
    Ok(())
}
