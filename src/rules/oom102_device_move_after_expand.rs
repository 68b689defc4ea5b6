//! OOM102 device-move-after-expand: moving a broadcast view to another device copies every element.

use crate::diagnostic::{Applicability, Fix};
use crate::analysis::{EnlargeKind, SinkKind, Site};

use super::describe::{Advice, enlarged_sink_finding};
use super::{Check, Finding, RuleContext, RuleInfo, RuleKind};

pub static RULE: RuleInfo = RuleInfo {
    code: "OOM102",
    name: "device-move-after-expand",
    kind: RuleKind::Static,
    default: true,
    doc: include_str!("../../lints/OOM102.md"),
    check: Check::Site(check),
    fix: Some(fix),
};

pub fn check(site: &Site, ctx: &RuleContext) -> Option<Finding> {
    if site.enlarged.kind != EnlargeKind::View || !matches!(site.sink, SinkKind::DeviceMove) {
        return None;
    }
    // Only a move known to copy the data elsewhere (made on the host and moved to a device, or
    // back). One of unknown origin is not reported here: on transformers most are placeholder
    // masks moved where they already are (74 findings). The view may survive such a move, so
    // the sinks after it are reported ("may"). OOM112 reports unknown-origin moves of copies.
    if !site.moves_across_devices {
        return None;
    }
    Some(enlarged_sink_finding(
        &RULE,
        site,
        ctx,
        Advice {
            verb: "move it to the device",
            remedy: None,
            message_tail: None,
        },
    ))
}

/// The fix: move the device move before the enlarger. Always unsafe: `.to(...)` may also change
/// the dtype, or the tensor may already be on that device (see the document's "Fix safety").
fn fix(site: &Site, text: &str) -> Option<Fix> {
    crate::fix::reorder_before_enlarger(site, text, Applicability::Unsafe)
}
