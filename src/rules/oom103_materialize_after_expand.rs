//! OOM103 materialize-after-expand: `.contiguous()`, `.clone()` or a merging reshape of a broadcast view.

use crate::analysis::{EnlargeKind, SinkKind, Site};

use super::describe::{Advice, enlarged_sink_finding, short_code};
use super::select::copy_needed_for_layout;
use super::{Check, Finding, RuleContext, RuleInfo, RuleKind};

pub static RULE: RuleInfo = RuleInfo {
    code: "OOM103",
    name: "materialize-after-expand",
    kind: RuleKind::Static,
    default: true,
    doc: include_str!("../../lints/OOM103.md"),
    check: Check::Site(check),
    fix: None,
};

pub fn check(site: &Site, ctx: &RuleContext) -> Option<Finding> {
    if site.enlarged.kind != EnlargeKind::View || !matches!(site.sink, SinkKind::Materialize) {
        return None;
    }
    // A copy made for a merge or an in-place write is needed: OOM131's, when selected.
    if copy_needed_for_layout(site) {
        return None;
    }
    let op = &site.enlarged.op;
    let (tail, remedy) = if site.merged_later && site.result_combined && !site.result_converted {
        // Merged, then read by an elementwise op: the op broadcasts in the unmerged shape.
        (
            "the merged copy only feeds an elementwise op: apply it before the merge, on the \
             broadcast view"
                .to_string(),
            format!(
                "apply the elementwise op in the shape `{op}` gives (view the other operand in \
                 that shape, or combine it with `{}` before `{op}`), then merge the result: the \
                 broadcast view is never copied",
                site.enlarged.receiver_code
            ),
        )
    } else if site.merged_later {
        // Merged, then converted again: the conversion is the avoidable second copy.
        (
            format!("the copy is converted again afterwards: convert before `{op}`"),
            format!(
                "convert `{}` before `{op}`: the merge then copies the converted tensor once, \
                 instead of a full-size copy followed by a full-size conversion",
                site.enlarged.receiver_code
            ),
        )
    } else if is_pad(&site.sink_step.code) {
        // Padding writes a new tensor: it cannot be dropped, but it can run on the small one.
        (
            format!("pad before `{op}`, then enlarge to the padded size"),
            format!(
                "pad `{}` before `{op}` and enlarge to the padded size, when the padded dims are \
                 not the enlarged ones; the padded result is then a view again",
                site.enlarged.receiver_code
            ),
        )
    } else if site.result_leaves_project {
        // Passed to another package's code, which may check strides: never advise dropping it
        // outright.
        let sink = short_code(&site.sink_step.code);
        (
            format!(
                "the copy is passed to code outside the project, which may need it dense: drop \
                 `{sink}` only if that code accepts a broadcast view"
            ),
            "check what the receiving function needs: a kernel or an extension op that reads raw \
             memory needs this copy; a function that only broadcasts it does not"
                .to_string(),
        )
    } else {
        let sink = short_code(&site.sink_step.code);
        (
            format!("drop `{sink}` if every consumer accepts a broadcast view"),
            "keep the stride-0 view: `+`, `*`, `masked_fill`, `torch.where` and \
             `scaled_dot_product_attention` broadcast it themselves; copying the small tensor \
             before expanding would not help, the result would be a view again"
                .to_string(),
        )
    };
    Some(enlarged_sink_finding(
        &RULE,
        site,
        ctx,
        Advice {
            verb: "copy",
            remedy: Some(remedy),
            message_tail: Some(tail),
        },
    ))
}

/// `F.pad(m, ...)`, `torch.nn.functional.pad(m, ...)`, `pad(m, ...)`.
fn is_pad(sink_code: &str) -> bool {
    let callee = sink_code.split('(').next().unwrap_or("").trim();
    callee == "pad" || callee.ends_with(".pad")
}
