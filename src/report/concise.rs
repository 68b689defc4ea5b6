//! `concise`: one line per diagnostic, `path:line:col: LEVEL CODE message` (`path:cell N:line:col`
//! in a notebook; LEVEL is `error` or `warning`).

use std::io::{self, Write};

use crate::model::LintResult;

pub fn write(out: &mut dyn Write, result: &LintResult) -> io::Result<()> {
    for report in &result.reports {
        for d in &report.diagnostics {
            writeln!(
                out,
                "{}:{}: {} {} {}",
                d.file,
                d.place(),
                d.level.as_str(),
                d.rule.code,
                d.message
            )?;
        }
    }
    Ok(())
}
