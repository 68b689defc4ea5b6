//! `github`: GitHub Actions workflow commands, one `::error` or `::warning`
//! annotation per diagnostic, by its level.
//!
//! `::error file=PATH,line=L,col=C,endLine=L2,endColumn=C2,title=CODE (name)::message`, with the
//! escapes GitHub's toolkit applies: `%`, `\r`, `\n` everywhere, and `:` `,` in properties.

use std::io::{self, Write};

use super::{diagnostics, file_span, portable_path};
use crate::model::LintResult;

pub fn write(out: &mut dyn Write, result: &LintResult) -> io::Result<()> {
    for (_, d) in diagnostics(result) {
        // In a notebook the annotation goes on the `.ipynb` line that holds the cell's line, and
        // the message says where in the cell.
        let (start, end) = file_span(d);
        let message = match d.cell {
            Some(_) => format!("{}: {}", d.place(), d.message),
            None => d.message.clone(),
        };
        writeln!(
            out,
            "::{} file={},line={},col={},endLine={},endColumn={},title={}::{}",
            d.level.as_str(),
            escape_property(&portable_path(&d.file)),
            start.row,
            start.column,
            end.row,
            end.column,
            escape_property(&format!("{} ({})", d.rule.code, d.rule.name)),
            escape_data(&message),
        )?;
    }
    Ok(())
}

fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::{escape_data, escape_property};

    #[test]
    fn escapes_as_the_actions_toolkit_does() {
        assert_eq!(escape_data("50% a\r\nb: c, d"), "50%25 a%0D%0Ab: c, d");
        assert_eq!(escape_property("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
    }
}
