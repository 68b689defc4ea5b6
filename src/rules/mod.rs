//! The rules: each file turns analysis sites of one kind into findings with a code, a message
//! and a suggestion. Rules never print or touch files.

mod describe;
mod oom001_syntax_error;
mod oom002_unreadable_file;
mod oom101_cast_after_expand;
mod oom102_device_move_after_expand;
mod oom103_materialize_after_expand;
mod oom104_elementwise_after_expand;
mod oom111_cast_after_repeat;
mod oom112_device_move_after_repeat;
mod oom113_elementwise_after_repeat;
mod oom121_repeat_instead_of_expand;
mod oom201_materialized_broadcast_in_profile;
mod oom202_large_allocation_in_profile;
mod oom203_oom_site;
pub mod profile_text;
mod select;
pub(crate) use select::select_sites;

use std::collections::HashMap;

pub use describe::{format_bytes, group_digits};

use crate::analysis::{Site, Step};

/// A rule's identity and documentation.
#[derive(Debug)]
pub struct RuleInfo {
    pub code: &'static str,
    pub name: &'static str,
    /// The rule's document in `lints/`.
    pub doc: &'static str,
}

impl RuleInfo {
    /// The one-sentence summary: the first paragraph after the title.
    pub fn summary(&self) -> String {
        self.doc
            .lines()
            .skip_while(|l| l.starts_with('#') || l.trim().is_empty())
            .take_while(|l| !l.trim().is_empty())
            .map(str::trim)
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The text of the section `## {title}` of the doc, its paragraphs joined into single lines
    /// (code blocks and list items keep their lines).
    pub fn section(&self, title: &str) -> Option<String> {
        let heading = format!("## {title}");
        let mut lines = self.doc.lines().skip_while(|l| l.trim_end() != heading);
        lines.next()?;
        let mut out = String::new();
        let mut in_code = false;
        let mut prev_blank = true;
        for line in lines.take_while(|l| !l.starts_with("## ")) {
            let trimmed = line.trim_end();
            if trimmed.starts_with("```") {
                in_code = !in_code;
            }
            if trimmed.is_empty() && !in_code {
                if !prev_blank {
                    out.push_str("\n\n");
                }
                prev_blank = true;
                continue;
            }
            let joins = !prev_blank
                && !in_code
                && !trimmed.starts_with("```")
                && !trimmed.trim_start().starts_with("- ")
                && !out.ends_with("```");
            if joins {
                out.push(' ');
                out.push_str(trimmed.trim_start());
            } else {
                if !prev_blank {
                    out.push('\n');
                }
                out.push_str(trimmed);
            }
            prev_blank = false;
        }
        let text = out.trim().to_string();
        (!text.is_empty()).then_some(text)
    }
}

/// Every rule, in code order.
pub static RULES: &[&RuleInfo] = &[
    &oom001_syntax_error::RULE,
    &oom002_unreadable_file::RULE,
    &oom101_cast_after_expand::RULE,
    &oom102_device_move_after_expand::RULE,
    &oom103_materialize_after_expand::RULE,
    &oom104_elementwise_after_expand::RULE,
    &oom111_cast_after_repeat::RULE,
    &oom112_device_move_after_repeat::RULE,
    &oom113_elementwise_after_repeat::RULE,
    &oom121_repeat_instead_of_expand::RULE,
    &oom201_materialized_broadcast_in_profile::RULE,
    &oom202_large_allocation_in_profile::RULE,
    &oom203_oom_site::RULE,
];

pub fn rule_by_code(code: &str) -> Option<&'static RuleInfo> {
    RULES
        .iter()
        .copied()
        .find(|r| r.code.eq_ignore_ascii_case(code) || r.name == code)
}

pub use oom001_syntax_error::RULE as SYNTAX_ERROR;
pub use oom002_unreadable_file::RULE as UNREADABLE_FILE;
pub use oom201_materialized_broadcast_in_profile::{
    RULE as MATERIALIZED_BROADCAST_IN_PROFILE, finding as materialized_broadcast_finding,
};
pub use oom202_large_allocation_in_profile::{
    DEFAULT_MIN_BYTES, RULE as LARGE_ALLOCATION_IN_PROFILE, finding as large_allocation_finding,
};
pub use oom203_oom_site::{RULE as OOM_SITE, finding as oom_site_finding};

/// A profile rule's verdict for a line the evidence names (before positions are attached).
#[derive(Debug)]
pub struct ProfileFinding {
    pub rule: &'static RuleInfo,
    pub message: String,
    pub primary_label: String,
    pub help: Option<String>,
    pub notes: Vec<String>,
}

/// What rules may consult besides the site.
pub struct RuleContext<'a> {
    /// Values bound to symbolic sizes (`--dim batch_size=3`).
    pub dims: &'a HashMap<String, i64>,
}

/// A rule's verdict on a site, before positions are attached.
#[derive(Debug)]
pub struct Finding {
    pub rule: &'static RuleInfo,
    pub message: String,
    pub primary_label: String,
    /// Chain steps with their label text.
    pub labels: Vec<(Step, String)>,
    pub help: Option<String>,
    pub notes: Vec<String>,
}

type SiteCheck = fn(&Site, &RuleContext) -> Option<Finding>;

/// The rules that read analysis sites.
const SITE_RULES: &[SiteCheck] = &[
    oom101_cast_after_expand::check,
    oom102_device_move_after_expand::check,
    oom103_materialize_after_expand::check,
    oom104_elementwise_after_expand::check,
    oom111_cast_after_repeat::check,
    oom112_device_move_after_repeat::check,
    oom113_elementwise_after_repeat::check,
    oom121_repeat_instead_of_expand::check,
];

/// The finding for a site, if a rule claims it.
pub fn check_site(site: &Site, ctx: &RuleContext) -> Option<Finding> {
    SITE_RULES.iter().find_map(|check| check(site, ctx))
}
