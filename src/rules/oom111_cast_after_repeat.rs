//! OOM111 cast-after-repeat: a cast of a repeated copy makes a second full-size copy.

use crate::analysis::{EnlargeKind, SinkKind, Site};

use super::describe::{Advice, enlarged_sink_finding};
use super::{Finding, RuleContext, RuleInfo};

pub static RULE: RuleInfo = RuleInfo {
    code: "OOM111",
    name: "cast-after-repeat",
    doc: include_str!("../../lints/OOM111.md"),
};

pub fn check(site: &Site, ctx: &RuleContext) -> Option<Finding> {
    if site.enlarged.kind != EnlargeKind::Copy || !matches!(site.sink, SinkKind::Cast { .. }) {
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
