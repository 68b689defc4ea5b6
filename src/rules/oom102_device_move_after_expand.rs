//! OOM102 device-move-after-expand: moving a broadcast view to another device copies every element.

use crate::analysis::{EnlargeKind, SinkKind, Site};

use super::describe::{Advice, enlarged_sink_finding};
use super::{Finding, RuleContext, RuleInfo};

pub static RULE: RuleInfo = RuleInfo {
    code: "OOM102",
    name: "device-move-after-expand",
    doc: include_str!("../../lints/OOM102.md"),
};

pub fn check(site: &Site, ctx: &RuleContext) -> Option<Finding> {
    if site.enlarged.kind != EnlargeKind::View || !matches!(site.sink, SinkKind::DeviceMove) {
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
