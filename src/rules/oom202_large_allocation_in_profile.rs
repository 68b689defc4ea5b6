//! OOM202 large-allocation-in-profile: an allocation of at least `min-bytes` at a line with no
//! static finding.

use crate::diagnostic::Measured;
use crate::fmt::Bytes;

use super::profile_text::{first_input, times};
use super::{Check, EvidenceContext, ProfileFinding, RuleInfo, RuleKind};

pub static RULE: RuleInfo = RuleInfo {
    code: "OOM202",
    name: "large-allocation-in-profile",
    kind: RuleKind::Profile,
    default: true,
    doc: include_str!("../../lints/OOM202.md"),
    check: Check::Evidence(check),
    fix: None,
};

/// The threshold when `min-bytes` is not configured: 1 GiB.
pub const DEFAULT_MIN_BYTES: u64 = 1 << 30;

pub fn check(m: &Measured, ctx: &EvidenceContext) -> Option<ProfileFinding> {
    let min_bytes = ctx.min_bytes;
    if m.bytes < min_bytes {
        return None;
    }
    let op = m.op.as_deref().unwrap_or("an allocation");
    let input = first_input(m)
        .map(|i| format!(" (input {i})"))
        .unwrap_or_default();
    Some(ProfileFinding {
        rule: &RULE,
        message: format!(
            "`{op}` allocated {:#}{} here{input}, at least min-bytes {:#}",
            Bytes(m.bytes),
            times(m),
            Bytes(min_bytes)
        ),
        primary_label: "large allocation measured here".to_string(),
        help: Some(
            "no static rule matches this line: consider chunking, a fused kernel or a lower precision"
                .to_string(),
        ),
        notes: Vec::new(),
    })
}
