//! OOM111 cast-after-repeat: a cast of a repeated copy makes a second full-size copy.

use crate::diagnostic::Fix;
use crate::analysis::{EnlargeKind, SinkKind, Site};

use super::fix_policy;
use super::describe::{cast_advice, enlarged_sink_finding};
use super::{Check, Finding, RuleContext, RuleInfo, RuleKind};

pub static RULE: RuleInfo = RuleInfo {
    code: "OOM111",
    name: "cast-after-repeat",
    kind: RuleKind::Static,
    default: true,
    doc: include_str!("../../lints/OOM111.md"),
    check: Check::Site(check),
    fix: Some(fix),
};

pub fn check(site: &Site, ctx: &RuleContext) -> Option<Finding> {
    if site.enlarged.kind != EnlargeKind::Copy || !matches!(site.sink, SinkKind::Cast { .. }) {
        return None;
    }
    Some(enlarged_sink_finding(
        &RULE,
        site,
        ctx,
        cast_advice(site),
    ))
}

/// The fix: move the cast before the enlarger (see the document's "Fix safety").
fn fix(site: &Site, text: &str) -> Option<Fix> {
    let SinkKind::Cast {
        certain,
        in_reduction: false,
        inside: None,
        ..
    } = &site.sink
    else {
        return None;
    };
    crate::fix::reorder_before_enlarger(site, text, fix_policy::cast(site, *certain))
}
