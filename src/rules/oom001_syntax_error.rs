//! OOM001 syntax-error (reported by the pipeline, not from analysis sites).

use super::RuleInfo;

pub static RULE: RuleInfo = RuleInfo {
    code: "OOM001",
    name: "syntax-error",
    doc: include_str!("../../lints/OOM001.md"),
};
