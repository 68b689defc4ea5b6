//! OOM002 unreadable-file (reported by the pipeline, not from analysis sites).

use super::{Check, RuleInfo, RuleKind};

pub static RULE: RuleInfo = RuleInfo {
    code: "OOM002",
    name: "unreadable-file",
    kind: RuleKind::File,
    default: true,
    doc: include_str!("../../lints/OOM002.md"),
    check: Check::Driver,
    fix: None,
};
