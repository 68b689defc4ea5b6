//! OOM104 elementwise-after-expand: an elementwise op with scalars on a broadcast view writes the full result.

use crate::diagnostic::Fix;
use crate::analysis::{EnlargeKind, SinkKind, Site};

use super::fix_policy;
use super::describe::{Advice, enlarged_sink_finding};
use super::{Check, Finding, RuleContext, RuleInfo, RuleKind};

pub static RULE: RuleInfo = RuleInfo {
    code: "OOM104",
    name: "elementwise-after-expand",
    kind: RuleKind::Static,
    default: true,
    doc: include_str!("../../lints/OOM104.md"),
    check: Check::Site(check),
    fix: Some(fix),
};

pub fn check(site: &Site, ctx: &RuleContext) -> Option<Finding> {
    if site.enlarged.kind != EnlargeKind::View || !matches!(site.sink, SinkKind::Elementwise) {
        return None;
    }
    let mut finding = enlarged_sink_finding(
        &RULE,
        site,
        ctx,
        Advice {
            verb: "apply the operation",
            remedy: None,
            message_tail: None,
        },
    );
    if site.other_operand_enlarged {
        finding.help = Some(
            "both operands are views expanded to this shape from sources that lack a grown dim: \
             apply the operation to the two sources (they broadcast against each other), then \
             expand the result once"
                .to_string(),
        );
    }
    Some(finding)
}

/// The fix: apply the operation to the small tensor, then enlarge (see the document's "Fix
/// safety").
fn fix(site: &Site, text: &str) -> Option<Fix> {
    // Along a dim (`softmax`, `nn.Linear`, `F.interpolate`): its arguments may name dims that
    // the moved op would count differently; advice only.
    if site.along_dim {
        return None;
    }
    // Both operands are views over the same dims: moving one `expand` past the op leaves the
    // other one full size, so no one-sided rewrite removes the cost.
    if site.other_operand_enlarged {
        return None;
    }
    fix_policy::chain(site, text).or_else(|| {
        crate::fix::fold_elementwise(site, text, |operands| {
            fix_policy::elementwise(site, operands)
        })
    })
}
