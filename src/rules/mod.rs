//! The rules: each file turns analysis sites (or measured evidence) of one kind into findings
//! with a code, a message and a suggestion, and builds its own fix from the `fix` toolbox.
//! Rules never print or touch files.
//!
//! `rules!` below is the one list of rules: it declares each rule's module and builds `RULES`
//! from them, in code order. Adding a rule is one line here (see `docs/architecture.md`).

pub mod capacity;
mod describe;
pub mod fate;
mod fix_policy;
pub mod level;
pub mod profile_text;
mod registry;
mod select;
pub mod size_estimate;

use std::collections::HashMap;

pub use registry::{Check, EvidenceContext, FixBuilder, PROJECT_URL, RuleInfo, RuleKind};
pub(crate) use select::{select_sites, selection};

use crate::analysis::{SinkKind, Site, Step};
use crate::diagnostic::{Level, Measured};
pub use size_estimate::{DEFAULT_MIN_STATIC_BYTES, SizeFigure};

/// Declares every rule module and `RULES`, from one list.
macro_rules! rules {
    ($($module:ident),* $(,)?) => {
        $(mod $module;)*

        /// Every rule, in code order.
        pub static RULES: &[&RuleInfo] = &[$(&$module::RULE),*];
    };
}

rules! {
    oom001_syntax_error,
    oom002_unreadable_file,
    oom101_cast_after_expand,
    oom102_device_move_after_expand,
    oom103_materialize_after_expand,
    oom104_elementwise_after_expand,
    oom111_cast_after_repeat,
    oom112_device_move_after_repeat,
    oom113_elementwise_after_repeat,
    oom121_repeat_instead_of_expand,
    oom131_copy_of_broadcast_for_layout,
    oom201_materialized_broadcast_in_profile,
    oom202_large_allocation_in_profile,
    oom203_oom_site,
}

/// The rule table in Markdown: code, name, kind, whether it is in the default set, and the
/// summary of its document. README.md's table is this text (a test keeps them equal).
pub fn markdown_table() -> String {
    let mut out =
        String::from("| code | name | kind | default | what it reports |\n|---|---|---|---|---|\n");
    for rule in RULES {
        let kind = match rule.kind {
            RuleKind::File => "file",
            RuleKind::Static => "static",
            RuleKind::Profile => "profile",
        };
        let default = if rule.default { "yes" } else { "no" };
        out.push_str(&format!(
            "| {} | {} | {kind} | {default} | {} |\n",
            rule.code,
            rule.name,
            rule.summary().replace('|', "\\|")
        ));
    }
    out
}

/// The rule with this code (any case) or name.
pub fn rule_by_code(code: &str) -> Option<&'static RuleInfo> {
    RULES
        .iter()
        .copied()
        .find(|r| r.code.eq_ignore_ascii_case(code) || r.name == code)
}

pub use oom001_syntax_error::RULE as SYNTAX_ERROR;
pub use oom002_unreadable_file::RULE as UNREADABLE_FILE;
pub use oom201_materialized_broadcast_in_profile::RULE as MATERIALIZED_BROADCAST_IN_PROFILE;
pub use oom202_large_allocation_in_profile::{
    DEFAULT_MIN_BYTES, RULE as LARGE_ALLOCATION_IN_PROFILE,
};
pub use oom203_oom_site::RULE as OOM_SITE;

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
    /// Where each key of `dims` was given (`[tool.oomlint.dims]` of a file, or `--dim`).
    pub dim_origins: &'a HashMap<String, size_estimate::BindOrigin>,
    /// The linted file as the report names it (a constant's basis says where it is).
    pub file: &'a str,
    /// `min-static-bytes`: a static finding whose result is estimated below this many bytes (at
    /// the bound sizes and the role defaults) is not reported; 0 reports every size.
    pub min_static_bytes: u64,
    /// Sizes the model's configuration states for this file's folder (`config.json`,
    /// `configuration_*.py` defaults).
    pub model_dims: &'a size_estimate::ModelDims,
    /// Sizes and site measurements a profile gave (`--profile`).
    pub learned: &'a size_estimate::LearnedDims,
    /// `capacity`: the device's memory in bytes.
    pub capacity: Option<u64>,
    /// The file is a test file (`test-files`): its findings are warnings.
    pub in_test_file: bool,
}

/// A rule's verdict on a site, before positions are attached.
#[derive(Debug)]
pub struct Finding {
    pub rule: &'static RuleInfo,
    /// Error or warning ([`level::finding_level`]; set when a rule claims the site, decided again
    /// in [`at_place`]).
    pub level: Level,
    /// The pattern is certain from facts ([`level::pattern_is_certain`]).
    pub pattern_certain: bool,
    pub message: String,
    pub primary_label: String,
    /// Chain steps with their label text.
    pub labels: Vec<(Step, String)>,
    pub help: Option<String>,
    pub notes: Vec<String>,
    /// The estimated size of the full-size result, when its rank is known.
    pub size: Option<SizeFigure>,
}

/// The finding for a site: the first static rule, in code order, that claims it; none when the
/// result is estimated below `min-static-bytes` (a tiny tensor is not worth the reorder), or when
/// it is a few copies of one example's tensor of unknown extent
/// ([`size_estimate::per_example_copy`]), or an integer index over one extent
/// ([`size_estimate::index_over_one_extent`]); `min-static-bytes = 0` shows every site.
pub fn check_site(site: &Site, ctx: &RuleContext) -> Option<Finding> {
    check_site_explained(site, ctx).ok()
}

/// [`check_site`], saying why a site gives no finding (for `oomlint sites`).
pub fn check_site_explained(site: &Site, ctx: &RuleContext) -> Result<Finding, fate::Dropped> {
    let finding = claim(site, ctx)?;
    match &finding.size {
        _ if ctx.min_static_bytes == 0 => Ok(finding),
        Some(size) if size.estimate.bytes < u128::from(ctx.min_static_bytes) => {
            Err(fate::Dropped::Tiny {
                bytes: size.estimate.bytes,
                min_static_bytes: ctx.min_static_bytes,
            })
        }
        // A "may" repeat of a leading dim that may be 1 is one example stretched by its
        // condition (an image embedding per prompt): the class cannot price it, since a batch of
        // one is what the warning already states.
        _ if size_estimate::per_example_copy(site, ctx.model_dims)
            && !matches!(
                site.sink,
                SinkKind::RepeatAsExpand {
                    may_if: Some(_),
                    ..
                }
            ) =>
        {
            Err(fate::Dropped::PerExampleCopy)
        }
        _ if size_estimate::index_over_one_extent(site) => Err(fate::Dropped::IndexOverOneExtent),
        _ => Ok(finding),
    }
}

/// [`check_site`], where `measured` says a profile measured the site (`--profile`): the evidence
/// shows it ran, so it is kept whatever its figure; the measured bytes decide (`min-bytes`).
pub fn check_site_measured(site: &Site, ctx: &RuleContext, measured: bool) -> Option<Finding> {
    if !measured {
        return check_site(site, ctx);
    }
    claim(site, ctx).ok()
}

/// The first rule's finding for a site, with its level decided from what is known before its
/// place: the pattern's certainty and the size's basis ([`at_place`] decides again once the
/// capacity check has run). A cast that saves nothing when moved before its copying enlarger
/// is no finding ([`size_estimate::cast_first_saving`]); one whose saving depends on a guess is
/// a "may", with a note that says on what.
fn claim(site: &Site, ctx: &RuleContext) -> Result<Finding, fate::Dropped> {
    let mut finding = RULES
        .iter()
        .find_map(|rule| match rule.check {
            Check::Site(check) => check(site, ctx),
            _ => None,
        })
        .ok_or(fate::Dropped::Unclaimed)?;
    let bindings = size_estimate::site_bindings(site, ctx);
    let may = match size_estimate::cast_first_saving(site, &bindings) {
        size_estimate::Saving::Nothing {
            op,
            factor,
            source,
            target,
        } => {
            return Err(fate::Dropped::NoSaving {
                op,
                factor,
                source,
                target,
            });
        }
        size_estimate::Saving::Depends(note) => {
            finding.notes.push(note);
            true
        }
        size_estimate::Saving::Saves => false,
    };
    finding.pattern_certain = !may && level::pattern_is_certain(site);
    decide_level(&mut finding, ctx);
    Ok(finding)
}

/// Sets the finding's level ([`level::finding_level`]) from its certainty and its size figure.
fn decide_level(finding: &mut Finding, ctx: &RuleContext) {
    finding.level = level::finding_level(
        finding.pattern_certain,
        finding.size.as_ref(),
        ctx.min_static_bytes,
        ctx.in_test_file,
    );
}

/// What the profiles and the budget add to a finding once its place (`file` as displayed, `row`)
/// is known: a note for each measured size other sites measured differently, and the capacity
/// check ([`capacity::apply`]).
pub fn at_place(finding: &mut Finding, ctx: &RuleContext, file: &str, row: usize) {
    if let Some(size) = &finding.size {
        let mut seen: Vec<&str> = Vec::new();
        for (name, _, source) in size.estimate.dims.iter().flat_map(|d| &d.sources) {
            if !matches!(source, size_estimate::ValueSource::Profile { .. })
                || seen.contains(&name.as_str())
            {
                continue;
            }
            seen.push(name);
            let last = name.rsplit('.').next().unwrap_or(name);
            if let Some(note) = ctx
                .learned
                .get(name, last)
                .and_then(|d| d.conflict_note(name))
            {
                finding.notes.push(note);
            }
        }
    }
    if let Some(capacity) = ctx.capacity {
        let budget = capacity::Budget {
            capacity,
            learned: ctx.learned,
        };
        capacity::apply(finding, &budget, Some((file, row)));
        // An allocation more than the device holds is an error at any basis.
        decide_level(finding, ctx);
    }
}

/// The fix `rule` builds for `site`, confined to the site's own function: a fix that would also
/// edit another function (a helper the finding was reached through, which other callers share,
/// or the caller that enlarged an argument) is shown, never applied.
pub fn site_fix(rule: &RuleInfo, site: &Site, text: &str) -> Option<crate::diagnostic::Fix> {
    let build = rule.fix?;
    build(site, text).map(|fix| fix_policy::confined_to_function(site, fix))
}

/// What `rule` says of the evidence measured at one line, if it is an evidence rule that claims
/// it. Which candidate measurement each rule sees is the cross-reference's business; the
/// precedence between them is `line_evidence_rules`.
pub fn check_evidence(
    rule: &'static RuleInfo,
    m: &Measured,
    ctx: &EvidenceContext,
) -> Option<ProfileFinding> {
    match rule.check {
        Check::Evidence(check) => check(m, ctx),
        _ => None,
    }
}

/// The evidence rules for a line with no static finding, in precedence order: a materialized
/// broadcast is the more specific explanation of an allocation, so it is preferred over "large".
pub fn line_evidence_rules() -> [&'static RuleInfo; 2] {
    [
        &MATERIALIZED_BROADCAST_IN_PROFILE,
        &LARGE_ALLOCATION_IN_PROFILE,
    ]
}

#[cfg(test)]
mod tests;
