//! `oomlint sites` output: every enlargement and its fate, as text, TSV or JSON.

use std::fmt::Write as _;

use crate::model::FileSites;

/// `path:row:col: op `code` [shape] (view|copy)`, then one indented line per conversion.
pub fn text(files: &[FileSites]) -> String {
    let mut out = String::new();
    let (mut total, mut reported) = (0, 0);
    for file in files {
        if let Some(note) = &file.note {
            let _ = writeln!(out, "{}: not listed: {note}", file.file);
            continue;
        }
        for e in &file.enlargements {
            total += 1;
            let shape = e
                .shape
                .as_deref()
                .map(|s| format!(" {s}"))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "{}:{}:{}: {} `{}`{shape} ({})",
                file.file, e.location.row, e.location.column, e.op, e.code, e.kind
            );
            if e.conversions.iter().any(|c| c.outcome == "reported") {
                reported += 1;
            }
            for c in &e.conversions {
                let _ = writeln!(
                    out,
                    "    {}:{} `{}`: {}",
                    c.location.row, c.location.column, c.code, c.reason
                );
            }
            if let Some(why) = &e.no_conversion {
                let _ = writeln!(out, "    {why}");
            }
        }
    }
    let _ = writeln!(
        out,
        "{total} enlargement{}, {reported} with a reported finding.",
        if total == 1 { "" } else { "s" }
    );
    out
}

/// One row per conversion (an enlargement with none gets one row with empty conversion
/// columns): `file line column op kind code shape conv_line conv_column conversion outcome rule
/// reason`, with a header row.
pub fn tsv(files: &[FileSites]) -> String {
    let mut out = String::from(
        "file\tline\tcolumn\top\tkind\tcode\tshape\tconv_line\tconv_column\tconversion\toutcome\trule\treason\n",
    );
    let clean = |s: &str| s.replace(['\t', '\n'], " ");
    for file in files {
        for e in &file.enlargements {
            let head = format!(
                "{}\t{}\t{}\t{}\t{}\t{}\t{}",
                clean(&file.file),
                e.location.row,
                e.location.column,
                e.op,
                e.kind,
                clean(&e.code),
                e.shape.as_deref().map(clean).unwrap_or_default()
            );
            for c in &e.conversions {
                let _ = writeln!(
                    out,
                    "{head}\t{}\t{}\t{}\t{}\t{}\t{}",
                    c.location.row,
                    c.location.column,
                    clean(&c.code),
                    c.outcome,
                    c.rule.unwrap_or(""),
                    clean(&c.reason)
                );
            }
            if let Some(why) = &e.no_conversion {
                let _ = writeln!(out, "{head}\t\t\t\tnone\t\t{}", clean(why));
            }
        }
    }
    out
}

/// `[{"file": ..., "enlargements": [...]}]`, a file per element.
pub fn json(files: &[FileSites]) -> Result<String, serde_json::Error> {
    let mut out = serde_json::to_string_pretty(files)?;
    out.push('\n');
    Ok(out)
}
