//! OOM121 repeat-instead-of-expand: a `repeat` of size-1 dims that only broadcasting consumers
//! read; `expand` gives the same values without the copy.

use crate::diagnostic::{Applicability, Fix};
use crate::analysis::{SinkKind, Site};

use super::describe::{short_code, size_note};
use super::size_estimate::site_figure;
use super::{Check, Finding, RuleContext, RuleInfo, RuleKind};

pub static RULE: RuleInfo = RuleInfo {
    code: "OOM121",
    name: "repeat-instead-of-expand",
    kind: RuleKind::Static,
    default: true,
    doc: include_str!("../../lints/OOM121.md"),
    check: Check::Site(check),
    fix: Some(fix),
};

pub fn check(site: &Site, ctx: &RuleContext) -> Option<Finding> {
    let SinkKind::RepeatAsExpand { expand_args } = &site.sink else {
        return None;
    };
    let repeat = short_code(&site.sink_step.code);
    let shape = site
        .result_shape
        .as_ref()
        .map(|s| format!(" {s}"))
        .unwrap_or_default();
    let size = site_figure(site, ctx.dims, ctx.model_dims);
    Some(Finding {
        rule: &RULE,
        message: format!(
            "`{repeat}` copies size-1 dims into a full{shape} tensor that is only broadcast; use `expand({expand_args})`"
        ),
        primary_label: "copies here; every reader broadcasts".to_string(),
        labels: Vec::new(),
        help: Some(format!(
            "replace with `{}.expand({expand_args})` (a view: do not write to it in place)",
            site.enlarged.receiver_code
        )),
        notes: size_note(site, size.as_ref()).into_iter().collect(),
        size,
    })
}

/// The fix: `repeat(...)` -> `expand(...)`. Display only: the result becomes a view, and an
/// in-place write to it would now write through to the source (see the document's "Fix
/// safety").
fn fix(site: &Site, _text: &str) -> Option<Fix> {
    let SinkKind::RepeatAsExpand { expand_args } = &site.sink else {
        return None;
    };
    Some(crate::fix::replace_sink(
        site,
        format!("expand({expand_args})"),
        format!("Replace `repeat` with `expand({expand_args})`"),
        Applicability::DisplayOnly,
    ))
}
