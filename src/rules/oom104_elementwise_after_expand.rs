//! OOM104 elementwise-after-expand: an elementwise op with scalars on a broadcast view writes the full result.

use crate::analysis::{EnlargeKind, SinkKind, Site};

use super::describe::{Advice, enlarged_sink_finding};
use super::{Finding, RuleContext, RuleInfo};

pub static RULE: RuleInfo = RuleInfo {
    code: "OOM104",
    name: "elementwise-after-expand",
    doc: include_str!("../../lints/OOM104.md"),
};

pub fn check(site: &Site, ctx: &RuleContext) -> Option<Finding> {
    if site.enlarged.kind != EnlargeKind::View || !matches!(site.sink, SinkKind::Elementwise) {
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
