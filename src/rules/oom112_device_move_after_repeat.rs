//! OOM112 device-move-after-repeat: moving a repeated copy moves every repeated element.

use crate::diagnostic::{Applicability, Fix};
use crate::analysis::{EnlargeKind, SinkKind, Site};

use super::describe::{Advice, enlarged_sink_finding};
use super::{Check, Finding, RuleContext, RuleInfo, RuleKind};

pub static RULE: RuleInfo = RuleInfo {
    code: "OOM112",
    name: "device-move-after-repeat",
    kind: RuleKind::Static,
    default: true,
    doc: include_str!("../../lints/OOM112.md"),
    check: Check::Site(check),
    fix: Some(fix),
};

pub fn check(site: &Site, ctx: &RuleContext) -> Option<Finding> {
    if site.enlarged.kind != EnlargeKind::Copy || !matches!(site.sink, SinkKind::DeviceMove) {
        return None;
    }
    // A move the facts show to do nothing (the value was made on that device, or moved there
    // earlier) is not reported. One of unknown origin may copy: it is reported, a warning unless
    // `moves_across_devices` says it surely copies.
    if site.move_is_noop {
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
