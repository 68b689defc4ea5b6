//! OOM101 cast-after-expand: a dtype cast of a broadcast view writes the whole enlarged tensor.

use crate::analysis::{EnlargeKind, SinkKind, Site};

use super::describe::{Advice, enlarged_sink_finding};
use super::{Finding, RuleContext, RuleInfo};

pub static RULE: RuleInfo = RuleInfo {
    code: "OOM101",
    name: "cast-after-expand",
    doc: include_str!("../../lints/OOM101.md"),
};

pub fn check(site: &Site, ctx: &RuleContext) -> Option<Finding> {
    if site.enlarged.kind != EnlargeKind::View || !matches!(site.sink, SinkKind::Cast { .. }) {
        return None;
    }
    Some(enlarged_sink_finding(
        &RULE,
        site,
        ctx,
        Advice {
            verb: "cast",
            remedy: None,
        },
    ))
}
