//! OOM113 elementwise-after-repeat: an elementwise op with scalars on a repeated copy computes every repeat.

use crate::diagnostic::Fix;
use crate::analysis::{EnlargeKind, SinkKind, Site};

use super::fix_policy;
use super::describe::{Advice, enlarged_sink_finding};
use super::{Check, Finding, RuleContext, RuleInfo, RuleKind};

pub static RULE: RuleInfo = RuleInfo {
    code: "OOM113",
    name: "elementwise-after-repeat",
    kind: RuleKind::Static,
    default: true,
    doc: include_str!("../../lints/OOM113.md"),
    check: Check::Site(check),
    fix: Some(fix),
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
            message_tail: None,
        },
    ))
}

/// The fix: apply the operation to the small tensor, then enlarge (see the document's "Fix
/// safety").
fn fix(site: &Site, text: &str) -> Option<Fix> {
    // Along a dim (`softmax`, `nn.Linear`, `F.interpolate`): its arguments may name dims that
    // the moved op would count differently; advice only.
    if site.along_dim {
        return None;
    }
    crate::fix::fold_elementwise(site, text, |operands| {
        fix_policy::elementwise(site, operands)
    })
}
