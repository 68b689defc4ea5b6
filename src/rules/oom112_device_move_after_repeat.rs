//! OOM112 device-move-after-repeat: moving a repeated copy moves every repeated element.

use crate::analysis::{EnlargeKind, SinkKind, Site};

use super::describe::{Advice, enlarged_sink_finding};
use super::{Finding, RuleContext, RuleInfo};

pub static RULE: RuleInfo = RuleInfo {
    code: "OOM112",
    name: "device-move-after-repeat",
    doc: include_str!("../../lints/OOM112.md"),
};

pub fn check(site: &Site, ctx: &RuleContext) -> Option<Finding> {
    if site.enlarged.kind != EnlargeKind::Copy || !matches!(site.sink, SinkKind::DeviceMove) {
        return None;
    }
    Some(enlarged_sink_finding(
        &RULE,
        site,
        ctx,
        Advice {
            verb: "move it to the device",
            remedy: None,
        },
    ))
}
