//! `json-lines`: the objects of the `json` format, one per line.

use std::io::{self, Write};

use crate::model::LintResult;

pub fn write(out: &mut dyn Write, result: &LintResult) -> io::Result<()> {
    for item in super::json::items(result) {
        serde_json::to_writer(&mut *out, &item).map_err(io::Error::other)?;
        writeln!(out)?;
    }
    Ok(())
}
