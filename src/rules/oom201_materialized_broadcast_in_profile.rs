//! OOM201 materialized-broadcast-in-profile: a profile shows a cast/copy/contiguous of a
//! broadcast view (an input dim of size > 1 with stride 0) at a line with no static finding.

use crate::diagnostic::Measured;
use crate::fmt::Bytes;

use super::profile_text::{first_input, times};
use super::{Check, EvidenceContext, ProfileFinding, RuleInfo, RuleKind};

pub static RULE: RuleInfo = RuleInfo {
    code: "OOM201",
    name: "materialized-broadcast-in-profile",
    kind: RuleKind::Profile,
    default: true,
    doc: include_str!("../../lints/OOM201.md"),
    check: Check::Evidence(check),
    fix: None,
};

pub fn check(m: &Measured, _ctx: &EvidenceContext) -> Option<ProfileFinding> {
    if !m.materialized_broadcast {
        return None;
    }
    let op = m.op.as_deref().unwrap_or("an operator");
    let input = first_input(m)
        .map(|i| format!(" of the broadcast view {i}"))
        .unwrap_or_default();
    Some(ProfileFinding {
        rule: &RULE,
        message: format!(
            "`{op}` wrote a full copy{input}: {:#}{} measured",
            Bytes(m.bytes),
            times(m)
        ),
        primary_label: "the profile shows a broadcast view materialized here".to_string(),
        help: Some(
            "cast, move or copy the small tensor first and broadcast it afterwards (see OOM101-OOM104)"
                .to_string(),
        ),
        notes: Vec::new(),
    })
}
