//! OOM203 oom-site: the line an out-of-memory failure names, with its figures.

use crate::diagnostic::Measured;
use crate::fmt::Bytes;

use super::{Check, EvidenceContext, ProfileFinding, RuleInfo, RuleKind};

pub static RULE: RuleInfo = RuleInfo {
    code: "OOM203",
    name: "oom-site",
    kind: RuleKind::Profile,
    default: true,
    doc: include_str!("../../lints/OOM203.md"),
    check: Check::Evidence(check),
    fix: None,
};

pub fn check(m: &Measured, _ctx: &EvidenceContext) -> Option<ProfileFinding> {
    let oom = m.oom.clone()?;
    let requested = oom
        .requested_bytes
        .map(|b| format!("tried to allocate {:#}", Bytes(b)))
        .unwrap_or_else(|| "ran out".to_string());
    let approx = if oom.approximate { " (rounded)" } else { "" };
    let mut figures = Vec::new();
    for (name, value) in [
        ("capacity", oom.capacity_bytes),
        ("allocated", oom.allocated_bytes),
        ("reserved", oom.reserved_bytes),
        ("free", oom.free_bytes),
    ] {
        if let Some(v) = value {
            figures.push(format!("{name} {:#}", Bytes(v)));
        }
    }
    let mut notes = Vec::new();
    if !figures.is_empty() {
        notes.push(format!("memory{approx}: {}", figures.join(", ")));
    }
    if let (Some(r), Some(a)) = (oom.reserved_bytes, oom.allocated_bytes)
        && r > a
    {
        notes.push(format!(
            "reserved but unallocated (fragmentation): {:#}",
            Bytes(r - a)
        ));
    }
    Some(ProfileFinding {
        rule: &RULE,
        message: format!("out of memory on {} here: {requested}{approx}", oom.device),
        primary_label: "the out-of-memory failure happened here".to_string(),
        help: Some(
            "apply the fix of the static finding at this line, if any; otherwise see OOM202"
                .to_string(),
        ),
        notes,
    })
}
