//! OOM113 elementwise-after-repeat: an elementwise op with scalars on a repeated copy computes every repeat.

use crate::analysis::{EnlargeKind, SinkKind, Site};

use super::describe::{Advice, enlarged_sink_finding};
use super::{Finding, RuleContext, RuleInfo};

pub static RULE: RuleInfo = RuleInfo {
    code: "OOM113",
    name: "elementwise-after-repeat",
    doc: include_str!("../../lints/OOM113.md"),
};

pub fn check(site: &Site, ctx: &RuleContext) -> Option<Finding> {
    if site.enlarged.kind != EnlargeKind::Copy || !matches!(site.sink, SinkKind::Elementwise) {
        return None;
    }
    Some(enlarged_sink_finding(
        &RULE,
        site,
        ctx,
        Advice {
            verb: "apply the operation",
            remedy: None,
        },
    ))
}
