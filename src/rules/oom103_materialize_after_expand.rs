//! OOM103 materialize-after-expand: `.contiguous()`, `.clone()` or a merging reshape of a broadcast view.

use crate::analysis::{EnlargeKind, SinkKind, Site};

use super::describe::{Advice, enlarged_sink_finding};
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
    let sink = site.sink_step.code.trim_start();
    let remedy = if sink.starts_with(".reshape") || sink.starts_with(".flatten") {
        "it merges a broadcast dim, so it must copy: keep the dims separate and let the consumer \
         broadcast (or reshape the other operand instead)"
    } else {
        "keep the view if nothing needs it contiguous, or copy the small tensor before expanding"
    };
    Some(enlarged_sink_finding(
        &RULE,
        site,
        ctx,
        Advice {
            verb: "copy",
            remedy: Some(remedy.to_string()),
        },
    ))
}
