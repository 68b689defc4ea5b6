//! Which files to analyse again once the first pass has summarized new functions: the files that
//! may call one of them (a `.name(` for a method, the bare `name` for a function).

use crate::analysis::{self, SummaryTable};

/// A text to look for in files that may call a newly summarized function: `.name(` for a
/// method, `name` (not in its own `def`) for a function.
pub(super) struct CallNeedle {
    pub(super) text: String,
    pub(super) is_method: bool,
    /// The function's result is not enlarged (a summary of its dtype): only a caller that
    /// enlarges something itself can gain a finding from it.
    pub(super) needs_enlarger: bool,
}

pub(super) fn add_summaries(
    table: &mut SummaryTable,
    summaries: Vec<analysis::FunctionSummary>,
    needles: &mut Vec<CallNeedle>,
) {
    for summary in summaries {
        let qualname = summary.qualname.clone();
        let (is_method, needs_enlarger) = (summary.is_method, summary.enlarged.is_none());
        if table.insert(summary) {
            add_needle(needles, &qualname, is_method, needs_enlarger);
        }
    }
}

pub(super) fn add_needle(
    needles: &mut Vec<CallNeedle>,
    qualname: &str,
    is_method: bool,
    needs_enlarger: bool,
) {
    let short = qualname.rsplit('.').next().unwrap_or(qualname);
    // A function known for its dtype only matters where it is called: `name(` matches far less
    // often than the bare name (which a file may mention in a hundred other identifiers).
    let text = if is_method {
        format!(".{short}(")
    } else if needs_enlarger {
        format!("{short}(")
    } else {
        short.to_string()
    };
    match needles.iter_mut().find(|n| n.text == text) {
        Some(known) => known.needs_enlarger &= needs_enlarger,
        None => needles.push(CallNeedle {
            text,
            is_method,
            needs_enlarger,
        }),
    }
}

/// Does `text` mention one of the needles other than in a `def` line?
pub(super) fn mentions_call(
    text: &str,
    matcher: &aho_corasick::AhoCorasick,
    needles: &[CallNeedle],
) -> bool {
    let mut enlarges = None;
    matcher.find_iter(text).any(|m| {
        let needle = &needles[m.pattern().as_usize()];
        // Called by its bare name (imported with `from ... import`), not as any object's method,
        // from a file that does not define its own function of that name (a call of that one is
        // known from the first pass) and that enlarges something.
        if needle.needs_enlarger
            && (text[..m.start()]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.')
                || text.contains(&format!("def {}", needle.text))
                || !*enlarges.get_or_insert_with(|| analysis::mentions_enlarger(text)))
        {
            return false;
        }
        needle.is_method || !text[..m.start()].ends_with("def ")
    })
}

/// The named files (their reports, from the first pass) reported for a copy of a broadcast view
/// (OOM103) that call a function of the table writing what it is given in place: walked again
/// with those functions known, the copy may be what is written (then it is needed).
pub(super) fn copies_maybe_written(
    reports: &[crate::model::FileReport],
    all: &[&crate::discovery::FileJob],
    table: &SummaryTable,
) -> Vec<usize> {
    if !table.has_in_place() {
        return Vec::new();
    }
    let writers: Vec<String> = table.in_place_names().map(|n| format!("{n}(")).collect();
    (0..reports.len())
        .filter(|&i| {
            reports[i]
                .diagnostics
                .iter()
                .any(|d| d.rule.code == "OOM103")
                && crate::source::read_source(&all[i].path, all[i].settings.max_file_size)
                    .is_ok_and(|s| writers.iter().any(|w| s.text.contains(w.as_str())))
        })
        .collect()
}
