//! How safe the static rules' fixes are: the policy each rule's document states under
//! "Fix safety", in one place for the rules that share it. The edits come from `crate::fix`.

use crate::analysis::{ChainEnd, EnlargeKind, Site, conversion_chain};
use crate::diagnostic::{Applicability, Fix};
use crate::fix::ChainPlacement;

/// A moved cast is safe when the argument is surely a dtype, the result does not leave the
/// function (returned, also inside a container; stored on an attribute; yielded; appended: its
/// later uses are not visible here) and, for a view, no later use could tell a broadcast view
/// from the copy it replaces. A repeat result is a real tensor either way.
pub fn cast(site: &Site, certain_dtype: bool) -> Applicability {
    let view_sensitive = site.enlarged.kind == EnlargeKind::View && view_may_be_observed(site);
    if certain_dtype && !view_sensitive && !site.result_escapes {
        Applicability::Safe
    } else {
        Applicability::Unsafe
    }
}

/// A folded elementwise op is safe only when its other operands are literals (or dtype limits):
/// anything else may have another shape or device, and the result must not be observable as a
/// view.
pub fn elementwise(site: &Site, other_operands: &str) -> Applicability {
    let literal_only = other_operands
        .chars()
        .all(|c| c.is_ascii_digit() || " .+-*/()~<>=!eE".contains(c))
        || other_operands.contains("finfo(")
        || other_operands.contains("iinfo(")
        || other_operands.contains("float(");
    if literal_only && !view_may_be_observed(site) {
        Applicability::Safe
    } else {
        Applicability::Unsafe
    }
}

/// Whether code after the site could notice that the result is now a stride-0 view: it escapes
/// the function, something needs it contiguous, or the value only may be enlarged.
fn view_may_be_observed(site: &Site) -> bool {
    site.result_escapes || site.result_needs_contiguous || site.enlarged.may
}

/// The fix for a site whose result is converted further (`.bool()` then `~`, `1.0 - m` then
/// `* min`): the enlarger moves past the whole chain, so one fix leaves no conversion of the
/// enlarged view behind. None when the chain ends at the site's own operation (the rule's own
/// fix does the same there) or cannot be followed.
///
/// The chain admits only literal operands and casts to a dtype literal or to the site's own
/// proven dtype. Safe when the end value is either only read by
/// broadcasting consumers (it may become a view) or is computed from a chain value in a later
/// statement (that value is enlarged instead, so the end value stays the same full-size tensor).
/// Otherwise the end value becomes a view that is returned or read in ways a view may not do:
/// unsafe.
pub fn chain(site: &Site, text: &str) -> Option<Fix> {
    let chain = conversion_chain(site, text)?;
    if chain.end_value.end() <= site.sink_step.range.end() {
        return None;
    }
    let (placement, applicability) = match chain.end {
        ChainEnd::BroadcastOnly => (ChainPlacement::AfterEnd, Applicability::Safe),
        _ if chain.end_spine.is_some() => (ChainPlacement::OnSpine, Applicability::Safe),
        _ => (ChainPlacement::AfterEnd, Applicability::Unsafe),
    };
    crate::fix::hoist_enlarger(&chain, text, placement, applicability)
}
