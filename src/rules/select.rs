//! Which analysis sites become findings. The analysis reports every site with plain facts about
//! its result (thrown away, written in place, its copy read elsewhere, read only by broadcasting);
//! the policy of which of those are worth a finding, and which rule wins when two would claim the
//! same code, lives here with the rules.

use crate::analysis::{EnlargeKind, SinkKind, Site, StepRole};
use crate::source::TextRange;

/// The sites worth a finding, in the order the analysis gave them.
pub(crate) fn select_sites(sites: Vec<Site>) -> Vec<Site> {
    let worth: Vec<bool> = sites
        .iter()
        .map(|site| match site.sink {
            // Judged below, once the conversions are known.
            SinkKind::RepeatAsExpand { .. } => false,
            _ => conversion_is_worth_reporting(site),
        })
        .collect();
    // A repeat already reported for its conversion is not also a repeat-instead-of-expand.
    let reported_repeats: Vec<TextRange> = sites
        .iter()
        .zip(&worth)
        .filter(|(_, worth)| **worth)
        .flat_map(|(site, _)| site.enlarged.steps.iter())
        .filter(|step| step.role == StepRole::Enlarge)
        .map(|step| step.range)
        .collect();
    sites
        .into_iter()
        .zip(worth)
        .filter(|(site, worth)| match site.sink {
            SinkKind::RepeatAsExpand { .. } => {
                site.only_broadcast_reads && !reported_repeats.contains(&site.sink_step.range)
            }
            _ => *worth,
        })
        .map(|(site, _)| site)
        .collect()
}

/// Whether a materialized broadcast is a copy the code needs for its layout or an in-place write:
/// its full-size result is merged across the broadcast dims (and not converted again
/// afterwards in the same function, which would be a second copy that converting first avoids;
/// a caller converting what a helper returns does not make the helper's merge avoidable),
/// written in place, passed as a convolution's weight (which must be dense), or an explicit
/// `.clone()` that the function returns (it hands its callers memory of their own, which any of
/// them may write). OOM131 claims these; OOM103 the others.
pub(crate) fn copy_needed_for_layout(site: &Site) -> bool {
    site.enlarged.kind == EnlargeKind::View
        && site.sink == SinkKind::Materialize
        && ((site.merged_later && !site.result_converted)
            || site.written_in_place
            || site.result_is_conv_weight
            || returned_clone(site))
}

/// The sink is a `.clone()` / `torch.clone(...)` whose result the function returns.
pub(crate) fn returned_clone(site: &Site) -> bool {
    let code = site.sink_step.code.trim_start();
    let callee = code.split('(').next().unwrap_or("").trim();
    site.result_returned && (callee == "clone" || callee.ends_with(".clone"))
}

/// A conversion (cast, move, materialization, elementwise op) of an enlarged value.
fn conversion_is_worth_reporting(site: &Site) -> bool {
    // A conversion whose result is thrown away allocates nothing anyone keeps; the same
    // conversion written twice on one line is one finding, not two with the same text.
    if site.discarded || site.repeats_earlier_on_line {
        return false;
    }
    // An op with a small tensor operand whose full-size result leaves the function as it is:
    // that tensor is the function's output, and doing the op first would hand the caller a
    // broadcast view in its place (not a reorder that keeps the result). It is also what one
    // safe fix of a returned chain leaves (`m.expand(...).masked_fill(m.bool(), min)`). When the
    // result is converted again first (`(causal + padding).to(dtype)`), the op is reported.
    if site.small_tensor_operand
        && site.result_escapes
        && !site.result_converted
        && !site.result_converted_by_caller
    {
        return false;
    }
    // A copy that enters a loop as its state (`h = layer(h)` rebinds it each pass): the loop
    // makes a tensor of that full size on its first pass anyway, so keeping the broadcast view
    // saves nothing that lasts.
    if site.sink == SinkKind::Materialize && site.result_is_loop_state {
        return false;
    }
    match site.enlarged.kind {
        // The copy was needed for the in-place write; a `.contiguous()`/`.clone()` made for it
        // is still a site (OOM131 reports needed copies when selected).
        EnlargeKind::View => !site.written_in_place || site.sink == SinkKind::Materialize,
        // After the reorder the result is still a real, writable copy; but when the repeated
        // tensor is also read elsewhere, converting first would need a second repeat, which saves
        // nothing.
        EnlargeKind::Copy => !site.copy_read_elsewhere,
    }
}

#[cfg(test)]
mod tests {
    //! Table-driven: a small file, every site the analysis reports (by its sink code), and the
    //! ones selected for a finding.

    use super::*;
    use crate::analysis::{ModuleInfo, SummaryTable, analyze_module};
    use crate::source::parse_module;

    fn codes<'a>(sites: impl IntoIterator<Item = &'a Site>) -> Vec<String> {
        sites
            .into_iter()
            .map(|s| s.sink_step.code.clone())
            .collect()
    }

    #[test]
    fn policy() {
        let cases: &[(&str, &str, &[&str], &[&str])] = &[
            (
                "a thrown-away conversion is not reported",
                "def f(x, b):\n    x.expand(b, 4).float()\n    return x.expand(b, 4).half()\n",
                &[".float()", ".half()"],
                &[".half()"],
            ),
            (
                "a broadcast view converted and then written in place needed the copy",
                "def f(x, b):\n    y = x.expand(b, 4).float()\n    y += 1\n    return y\n",
                &[".float()"],
                &[],
            ),
            (
                "a clone of a broadcast view written in place is kept (OOM131 claims it)",
                "def f(x, b):\n    y = x.expand(b, 4).clone()\n    y[0] = 1\n    return y\n",
                &[".clone()"],
                &[".clone()"],
            ),
            (
                "a repeated copy converted and then written in place is still reported",
                "def f(x, b):\n    y = x.repeat(b, 1).float()\n    y += 1\n    return y\n",
                &[".float()"],
                &[".float()"],
            ),
            (
                "a repeated copy also read elsewhere is not reported",
                "def f(x, b):\n    r = x.repeat(b, 1)\n    y = r.float()\n    return y, r.sum()\n",
                &[".float()"],
                &[],
            ),
            (
                "a repeated copy read once is reported",
                "def f(x, b):\n    r = x.repeat(b, 1)\n    return r.float()\n",
                &[".float()"],
                &[".float()"],
            ),
            (
                "a copy that starts a loop's state is not reported",
                "def f(x, b, n, layers):\n    h = x.unsqueeze(2).expand(-1, -1, n, -1).contiguous()\n    for layer in layers:\n        h = layer(h)\n    return h\n",
                &[".contiguous()"],
                &[],
            ),
            (
                "a copy a loop only reads is reported",
                "def f(x, b, n, layers, y):\n    h = x.unsqueeze(2).expand(-1, -1, n, -1).contiguous()\n    for layer in layers:\n        y = layer(y, h)\n    return y\n",
                &[".contiguous()"],
                &[".contiguous()"],
            ),
            (
                "a cast that starts a loop's state is still reported",
                "def f(x, b, n, layers):\n    h = x.unsqueeze(2).expand(-1, -1, n, -1).float()\n    for layer in layers:\n        h = layer(h)\n    return h\n",
                &[".float()"],
                &[".float()"],
            ),
            (
                "a repeat read only by broadcasting is a repeat-instead-of-expand",
                "def f(x, n):\n    r = x.unsqueeze(0).repeat(n, 1)\n    return r * x\n",
                &[".repeat(n, 1)"],
                &[".repeat(n, 1)"],
            ),
            (
                "a repeat read otherwise is not",
                "def f(x, n):\n    r = x.unsqueeze(0).repeat(n, 1)\n    return r.sum()\n",
                &[".repeat(n, 1)"],
                &[],
            ),
            (
                "a repeat reported for its conversion is not also a repeat-instead-of-expand",
                "def f(x, n):\n    r = x.unsqueeze(0).repeat(n, 1)\n    return r * 2.0\n",
                &[".repeat(n, 1)", "r * 2.0"],
                &["r * 2.0"],
            ),
        ];
        for (what, code, all, selected) in cases {
            let text = format!("import torch\n{code}");
            let parsed = parse_module(&text, false);
            let analysis = analyze_module(
                &parsed.body,
                &text,
                &ModuleInfo::default(),
                &SummaryTable::default(),
                false,
            );
            assert_eq!(codes(&analysis.sites), *all, "all sites: {what}");
            assert_eq!(
                codes(&select_sites(analysis.sites)),
                *selected,
                "selected: {what}"
            );
        }
    }

    #[test]
    fn copies_needed_for_layout() {
        // (what, code, is the one materialization a layout copy)
        let cases: &[(&str, &str, bool)] = &[
            (
                "repeat_kv merges the new dim",
                "def f(h, b, kv, n, s, d):\n    h = h[:, :, None].expand(b, kv, n, s, d)\n    return h.reshape(b, kv * n, s, d)\n",
                true,
            ),
            (
                "contiguous then a merging view",
                "def f(e, b, w, d):\n    e = e.unsqueeze(1).expand(b, b, w, d).contiguous()\n    return e.view(b * b, w, d)\n",
                true,
            ),
            (
                "contiguous then a view that keeps the dims",
                "def f(m, b, h, q, k):\n    m = m[:, None, None, :].expand(b, h, q, k).contiguous()\n    return m.view(b, h, q, k)\n",
                false,
            ),
            (
                "merged, then converted again",
                "def f(m, l, b, s, k, dev):\n    return m[None, :, :, None].expand(l, b, s, k).reshape(-1).to(dev)\n",
                false,
            ),
            (
                "clone written in place",
                "def f(m, b, q):\n    c = m[:, None, :].expand(b, q, -1).clone()\n    c[..., 0] = 1\n    return c\n",
                true,
            ),
        ];
        for (what, code, layout) in cases {
            let text = format!("import torch\n{code}");
            let parsed = parse_module(&text, false);
            let analysis = analyze_module(
                &parsed.body,
                &text,
                &ModuleInfo::default(),
                &SummaryTable::default(),
                false,
            );
            let site = analysis
                .sites
                .iter()
                .find(|s| s.sink == SinkKind::Materialize)
                .unwrap_or_else(|| panic!("no materialization: {what}"));
            assert_eq!(copy_needed_for_layout(site), *layout, "{what}");
        }
    }
}
