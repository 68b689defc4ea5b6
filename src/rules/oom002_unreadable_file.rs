//! OOM002 unreadable-file (reported by the pipeline, not from analysis sites).

use super::RuleInfo;

pub static RULE: RuleInfo = RuleInfo {
    code: "OOM002",
    name: "unreadable-file",
    doc: include_str!("../../lints/OOM002.md"),
};
