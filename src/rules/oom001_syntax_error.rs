//! OOM001 syntax-error (reported by the pipeline, not from analysis sites).

use super::{Check, RuleInfo, RuleKind};

pub static RULE: RuleInfo = RuleInfo {
    code: "OOM001",
    name: "syntax-error",
    kind: RuleKind::File,
    default: true,
    doc: include_str!("../../lints/OOM001.md"),
    check: Check::Driver,
    fix: None,
};
