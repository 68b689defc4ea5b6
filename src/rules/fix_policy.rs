//! How safe the static rules' fixes are: the policy each rule's document states under
//! "Fix safety", in one place for the rules that share it. The edits come from `crate::fix`.

use crate::analysis::{ChainEnd, EnlargeKind, Site, conversion_chain};
use crate::diagnostic::{Applicability, Fix};
use crate::fix::ChainPlacement;
use crate::source::TextRange;

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
/// the function, something needs it contiguous, it reaches code outside the project (a kernel
/// wrapper or an extension op, which may check strides), or the value only may be enlarged.
fn view_may_be_observed(site: &Site) -> bool {
    site.result_escapes
        || site.result_needs_contiguous
        || site.result_leaves_project
        || site.enlarged.may
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

/// A fix whose edits leave the function the site is in (the chain runs through a helper shared
/// by other callers, or an argument enlarged by a caller) changes code the finding does not
/// see: display only.
pub fn confined_to_function(site: &Site, mut fix: Fix) -> Fix {
    let scope = site.scope_range;
    let inside = |r: TextRange| scope.contains_range(r);
    let outside_step = site
        .enlarged
        .steps
        .iter()
        .any(|s| s.file.is_some() || !inside(s.range));
    if outside_step || fix.edits.iter().any(|e| !inside(e.range)) {
        fix.applicability = Applicability::DisplayOnly;
    }
    fix
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{ModuleInfo, SummaryTable, analyze_module};
    use crate::diagnostic::Edit;
    use crate::source::{Position, TextSize, parse_module};

    fn sites(text: &str) -> Vec<Site> {
        let parsed = parse_module(text, false);
        analyze_module(
            &parsed.body,
            text,
            &ModuleInfo::default(),
            &SummaryTable::default(),
            false,
        )
        .sites
    }

    fn fix_at(at: u32) -> Fix {
        let at = TextSize::from(at);
        Fix {
            applicability: Applicability::Safe,
            message: String::new(),
            edits: vec![Edit {
                content: String::new(),
                range: TextRange::empty(at),
                location: Position { row: 0, column: 0 },
                end_location: Position { row: 0, column: 0 },
                cell: None,
            }],
        }
    }

    #[test]
    fn a_fix_that_edits_another_function_is_display_only() {
        let text = "import torch\n\ndef helper(x):\n    return x\n\ndef f(m, b):\n    return m.expand(b, 4).float()\n";
        let site = sites(text).pop().expect("a site");
        let inside = text.find("m.expand").unwrap() as u32;
        let in_helper = text.find("return x").unwrap() as u32;
        let kept = confined_to_function(&site, fix_at(inside));
        assert_eq!(kept.applicability, Applicability::Safe);
        let moved = confined_to_function(&site, fix_at(in_helper));
        assert_eq!(moved.applicability, Applicability::DisplayOnly);
    }

    #[test]
    fn a_view_handed_outside_the_project_makes_the_cast_unsafe() {
        // (code, applicability of the moved cast)
        let cases = [
            (
                "import torch\nfrom vendor import kernel\n\ndef f(m, b):\n    y = m.expand(b, 4).to(torch.int32)\n    return kernel(y) + 1\n",
                Applicability::Unsafe,
            ),
            (
                "import torch\nimport vendor\n\ndef f(m, b):\n    y = m.expand(b, 4).to(torch.int32)\n    vendor.ops.attend(q=y)\n    return 1\n",
                Applicability::Unsafe,
            ),
            (
                "import torch\n\ndef g(y):\n    return y\n\ndef f(m, b):\n    y = m.expand(b, 4).to(torch.int32)\n    g(y)\n    return 1\n",
                Applicability::Safe,
            ),
        ];
        for (code, want) in cases {
            let site = sites(code).pop().expect("a site");
            assert_eq!(cast(&site, true), want, "{code}");
        }
    }
}
