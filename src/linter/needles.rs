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
    /// The summary only names parameters the function reads by broadcasting: only a caller
    /// that makes a copy (`repeat`, `repeat_interleave`, `tile`) can gain a finding from it.
    pub(super) needs_copy: bool,
    /// `utils.` for `pkg.utils.apply_masks`: the function called through its module.
    pub(super) module_prefix: String,
}

pub(super) fn add_summaries(
    table: &mut SummaryTable,
    summaries: Vec<analysis::FunctionSummary>,
    needles: &mut Vec<CallNeedle>,
) {
    for summary in summaries {
        let needle = needle_of(&summary);
        if table.insert(summary) {
            push_needle(needles, needle);
        }
    }
}

/// What to look for in the files that may call the function `summary` is about.
pub(super) fn needle_of(summary: &analysis::FunctionSummary) -> CallNeedle {
    let is_method = summary.is_method;
    let needs_enlarger = summary.enlarged.is_none();
    let needs_copy = needs_enlarger
        && summary.dtype.is_none()
        && summary.dtype_param.is_none()
        && !summary.returns_repeat
        && !summary.broadcast_params.is_empty();
    let qualname = &summary.qualname;
    let short = qualname.rsplit('.').next().unwrap_or(qualname);
    let module_prefix = qualname
        .rsplit('.')
        .nth(1)
        .map_or_else(String::new, |m| format!("{m}."));
    // A function known for its dtype only matters where it is called: `name(` matches far less
    // often than the bare name (which a file may mention in a hundred other identifiers).
    let text = if is_method {
        format!(".{short}(")
    } else if needs_enlarger {
        format!("{short}(")
    } else {
        short.to_string()
    };
    CallNeedle {
        text,
        is_method,
        needs_enlarger,
        needs_copy,
        module_prefix,
    }
}

/// Adds `needle`, or narrows the one with the same text to what both need.
pub(super) fn push_needle(needles: &mut Vec<CallNeedle>, needle: CallNeedle) {
    match needles.iter_mut().find(|n| n.text == needle.text) {
        Some(known) => {
            known.needs_enlarger &= needle.needs_enlarger;
            known.needs_copy &= needle.needs_copy;
            // Two functions of that name in different modules: neither is looked for through
            // its module.
            if known.module_prefix != needle.module_prefix {
                known.module_prefix.clear();
            }
        }
        None => needles.push(needle),
    }
}

/// Needles with what finds them: every place each one starts, overlapping ones too (one that
/// another covers still counts). Many needles start with the same common bytes (`._`), which
/// leaves an automaton a step per byte; the SIMD search (Teddy) finds at most 64 needles a pass,
/// so larger sets are searched in several passes, which is still the faster way.
pub(super) struct NeedleSet {
    needles: Vec<CallNeedle>,
    finder: Finder,
}

enum Finder {
    /// Teddy searchers, each with the range of `needles` it finds.
    Packed(Vec<(aho_corasick::packed::Searcher, std::ops::Range<usize>)>),
    /// Where the CPU has no SIMD search, or a needle is too short for it.
    Automaton(aho_corasick::AhoCorasick),
}

/// At most this many needles are found in one Teddy pass.
const PACKED_NEEDLES: usize = 64;

impl NeedleSet {
    /// None when nothing can be built to find them.
    pub(super) fn new(needles: Vec<CallNeedle>) -> Option<NeedleSet> {
        let packed: Option<Vec<_>> = (0..needles.len())
            .step_by(PACKED_NEEDLES)
            .map(|from| {
                let range = from..(from + PACKED_NEEDLES).min(needles.len());
                let searcher = aho_corasick::packed::Searcher::new(
                    needles[range.clone()].iter().map(|n| &n.text),
                )?;
                Some((searcher, range))
            })
            .collect();
        let finder = match packed {
            Some(searchers) => Finder::Packed(searchers),
            None => Finder::Automaton(
                aho_corasick::AhoCorasick::new(needles.iter().map(|n| &n.text)).ok()?,
            ),
        };
        Some(NeedleSet { needles, finder })
    }

    /// Whether `hit` holds for one place where a needle starts (`hit(needle, start)`).
    fn any_place(&self, text: &str, mut hit: impl FnMut(&CallNeedle, usize) -> bool) -> bool {
        let bytes = text.as_bytes();
        match &self.finder {
            Finder::Packed(searchers) => searchers.iter().any(|(searcher, range)| {
                let mut at = 0;
                while let Some(m) =
                    searcher.find_in(bytes, aho_corasick::Span::from(at..bytes.len()))
                {
                    let start = m.start();
                    // The search names one needle a place; others may start there too.
                    let found = self.needles[range.clone()].iter().any(|needle| {
                        bytes[start..].starts_with(needle.text.as_bytes()) && hit(needle, start)
                    });
                    if found {
                        return true;
                    }
                    at = start + 1;
                }
                false
            }),
            Finder::Automaton(matcher) => matcher
                .find_overlapping_iter(text)
                .any(|m| hit(&self.needles[m.pattern().as_usize()], m.start())),
        }
    }
}

/// Does `text` mention one of the needles other than in a `def` line?
pub(super) fn mentions_call(text: &str, set: &NeedleSet) -> bool {
    let mut enlarges = None;
    let mut copies = None;
    set.any_place(text, |needle, start| {
        // Called by its bare name (imported with `from ... import`), not as any object's method,
        // from a file that does not define its own function of that name (a call of that one is
        // known from the first pass) and that enlarges something. A function that only matters
        // to a copy may also be called through its module (`utils.apply_masks(pos, masks)`):
        // such files are few (they make a copy), so the attribute form is let through for it
        // when the name before the dot is the function's module (not `torch.gather(`).
        let before = text[..start].chars().next_back();
        let qualified = needle.needs_copy
            && !needle.module_prefix.is_empty()
            && text[..start].ends_with(&needle.module_prefix)
            && !text[..start - needle.module_prefix.len()]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.');
        if needle.needs_enlarger
            && (before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.') && !qualified
                || text.contains(&format!("def {}", needle.text))
                || !*enlarges.get_or_insert_with(|| analysis::mentions_enlarger(text)))
        {
            return false;
        }
        if needle.needs_copy && !*copies.get_or_insert_with(|| mentions_copy(text)) {
            return false;
        }
        needle.is_method || !text[..start].ends_with("def ")
    })
}

/// The needles of one pass-B round, split so that the files that make no copy (most of them) are
/// not scanned for the functions that only matter to a copy.
pub(super) struct CallMatcher {
    any: Option<NeedleSet>,
    copy_only: Option<NeedleSet>,
}

impl CallMatcher {
    /// None when a matcher cannot be built (it then finds nothing to do, as before).
    pub(super) fn new(needles: Vec<CallNeedle>) -> Option<CallMatcher> {
        let (copy_only, any): (Vec<_>, Vec<_>) = needles.into_iter().partition(|n| n.needs_copy);
        let build = |needles: Vec<CallNeedle>| -> Option<Option<NeedleSet>> {
            if needles.is_empty() {
                return Some(None);
            }
            Some(Some(NeedleSet::new(needles)?))
        };
        Some(CallMatcher {
            any: build(any)?,
            copy_only: build(copy_only)?,
        })
    }

    /// Does `text` call one of the round's functions (see [`mentions_call`])?
    pub(super) fn mentioned_in(&self, text: &str) -> bool {
        self.any
            .as_ref()
            .is_some_and(|set| mentions_call(text, set))
            || self
                .copy_only
                .as_ref()
                .is_some_and(|set| mentions_copy(text) && mentions_call(text, set))
    }
}

/// Does `text` make a copy that a broadcast-only parameter could take as a view (`x.repeat(`,
/// einops `repeat(`, `repeat_interleave(`, `tile(`)?
fn mentions_copy(text: &str) -> bool {
    text.contains("repeat(") || text.contains("repeat_interleave(") || text.contains("tile(")
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

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(name: &str, broadcast_params: &[&str]) -> analysis::FunctionSummary {
        analysis::FunctionSummary {
            broadcast_params: broadcast_params.iter().map(ToString::to_string).collect(),
            ..analysis::FunctionSummary::bare(name, false, &["x".to_string()])
        }
    }

    #[test]
    fn broadcast_only_helpers_matter_only_to_files_that_copy() {
        let matcher = CallMatcher::new(vec![needle_of(&summary("m.apply_masks", &["x"]))])
            .expect("a matcher");
        // A caller that expands (an enlarger) but makes no copy gains nothing from the summary.
        let expands = "y = x.expand(4, -1)\nz = apply_masks(y, idx)\n";
        assert!(!matcher.mentioned_in(expands));
        // A caller that repeats does, and so does one that tiles.
        let repeats = "y = x.repeat(4, 1)\nz = apply_masks(y, idx)\n";
        assert!(matcher.mentioned_in(repeats));
        assert!(matcher.mentioned_in("y = torch.tile(x, (4, 1))\napply_masks(y, i)\n"));
        // Called through its module (`from . import utils`) as well, not through another one.
        let by_module =
            CallMatcher::new(vec![needle_of(&summary("pkg.utils.apply_masks", &["x"]))])
                .expect("a matcher");
        assert!(by_module.mentioned_in("y = x.repeat(4, 1)\nz = utils.apply_masks(y, idx)\n"));
        assert!(!by_module.mentioned_in("y = x.repeat(4, 1)\nz = torch.apply_masks(y, idx)\n"));
        assert!(!by_module.mentioned_in("y = x.repeat(4, 1)\nz = a.utils.apply_masks(y, idx)\n"));
        // Its own definition is no call.
        assert!(!matcher.mentioned_in("def apply_masks(x, idx):\n    return x.repeat(2, 1)\n"));
    }

    #[test]
    fn other_summaries_are_looked_for_wherever_something_is_enlarged() {
        let mut dtype_only = summary("m.make_mask", &[]);
        dtype_only.dtype = Some(analysis::DType::Bool);
        let matcher = CallMatcher::new(vec![needle_of(&dtype_only)]).expect("a matcher");
        assert!(matcher.mentioned_in("m = make_mask(a)\nm = m.expand(2, -1)\n"));
        assert!(!matcher.mentioned_in("m = make_mask(a)\n"));
    }
}
