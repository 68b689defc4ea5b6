//! `oomlint sites`: every enlargement of a file with its fate, the finding it became or why none
//! was reported. It runs the same analysis and the same selection as `check`, and asks the
//! rules why each site they pass over gives no finding.

use std::path::Path;

use crate::analysis::{self, EnlargeKind, ModuleInfo, NextUse, Site, StepRole, SummaryTable};
use crate::config::Settings;
use crate::diagnostic::Diagnostic;
use crate::discovery::FileJob;
use crate::model::{ConversionFate, EnlargementFate, FileSites};
use crate::rules::{self, RuleContext};
use crate::source::{self, Lines, TextRange};

/// The census of one file of the tree: read, then [`census_text`]; an unreadable file or a
/// notebook gets a note instead.
pub(crate) fn census_job(
    job: &FileJob,
    module: &ModuleInfo,
    summaries: &SummaryTable,
    reported: &[Diagnostic],
) -> FileSites {
    let note = |note: String| FileSites {
        file: job.display.clone(),
        enlargements: Vec::new(),
        note: Some(note),
    };
    if source::notebook::is_notebook(&job.path) {
        return note(
            "a notebook: `sites` lists Python files only (`check` lints notebooks)".into(),
        );
    }
    match source::read_source(&job.path, job.settings.max_file_size) {
        Ok(src) => {
            let listed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                census_text(
                    &src.text,
                    &job.path,
                    module,
                    &job.settings,
                    summaries,
                    reported,
                )
            }));
            listed.unwrap_or_else(|_| note("internal error while listing this file".into()))
        }
        Err(e) => note(e.to_string()),
    }
}

/// The census of one readable Python text. `reported` are the file's diagnostics from `check`
/// (after suppression comments), so that "reported" means what `check` prints.
pub(crate) fn census_text(
    text: &str,
    path: &Path,
    module: &ModuleInfo,
    settings: &Settings,
    summaries: &SummaryTable,
    reported: &[Diagnostic],
) -> FileSites {
    let display = module.display_path.clone();
    let is_stub = path.extension().is_some_and(|e| e == "pyi");
    let parsed = source::parse_module(text, is_stub);
    let lines = Lines::new(text);
    let at = |range: TextRange| lines.position(text, range.start());
    let found = analysis::analyze_module(&parsed.body, text, module, summaries, true);
    let sites = if is_stub { Vec::new() } else { found.sites };
    let why_not = rules::selection(&sites);
    let model_dims = super::file_model_dims(path, &parsed.body);
    let ctx = super::rule_context(settings, &display, path, &model_dims);

    let mut out: Vec<(TextRange, EnlargementFate)> = found
        .enlargements
        .iter()
        .map(|e| {
            let fate = EnlargementFate {
                location: at(e.range),
                op: e.op.clone(),
                kind: kind_name(e.kind),
                code: e.code.clone(),
                shape: e.shape.as_ref().map(ToString::to_string),
                conversions: Vec::new(),
                no_conversion: None,
            };
            (e.range, fate)
        })
        .collect();
    for (site, why_not) in sites.iter().zip(why_not) {
        let (rule, outcome, reason) = match why_not {
            Some(w) => (None, "not-reported", w.to_string()),
            None => conversion_fate(site, &ctx, settings, path, reported, &lines, text),
        };
        let conversion = ConversionFate {
            location: at(site.sink_step.range),
            code: site.sink_step.code.clone(),
            outcome,
            rule,
            reason,
        };
        let local: Vec<TextRange> = site
            .enlarged
            .steps
            .iter()
            .filter(|s| s.role == StepRole::Enlarge && s.file.is_none())
            .map(|s| s.range)
            .collect();
        match out.iter_mut().find(|(r, _)| local.last() == Some(r)) {
            Some((_, fate)) => fate.conversions.push(conversion),
            // Enlarged by a helper elsewhere: listed at the call that returned it.
            None => {
                let call = site
                    .enlarged
                    .steps
                    .iter()
                    .find(|s| s.role == StepRole::Call && s.file.is_none());
                let (range, code) = call
                    .map(|s| (s.range, s.code.clone()))
                    .unwrap_or((site.sink_step.range, site.sink_step.code.clone()));
                match out.iter_mut().find(|(r, f)| *r == range && f.op == "call") {
                    Some((_, fate)) => fate.conversions.push(conversion),
                    None => out.push((
                        range,
                        EnlargementFate {
                            location: at(range),
                            op: "call".into(),
                            kind: kind_name(site.enlarged.kind),
                            code,
                            shape: site.enlarged.shape.as_ref().map(ToString::to_string),
                            conversions: vec![conversion],
                            no_conversion: None,
                        },
                    )),
                }
            }
        }
    }
    for skip in &found.skipped {
        if let Some((_, fate)) = out
            .iter_mut()
            .find(|(r, _)| skip.enlargers.last() == Some(r))
        {
            fate.conversions.push(ConversionFate {
                location: at(skip.at),
                code: method_code(text, skip.at),
                outcome: "not-reported",
                rule: None,
                reason: skip.why.to_string(),
            });
        }
    }
    for (range, fate) in &mut out {
        fate.conversions.sort_by_key(|c| c.location);
        if !fate.conversions.is_empty() {
            continue;
        }
        let Some(e) = found.enlargements.iter().find(|e| e.range == *range) else {
            continue;
        };
        fate.no_conversion = Some(if let Some(count) = &e.fixed_count {
            format!("does not enlarge: every call of the project passes `{count}` as 1")
        } else if e.same_shape {
            "does not enlarge: the result has the source's shape".to_string()
        } else {
            match analysis::census::next_use(&parsed.body, e.stmt, e.range, text) {
                NextUse::PassedTo { callee, at: call }
                    if e.kind == EnlargeKind::Copy && broadcasting_torch_function(&callee) =>
                {
                    format!(
                        "no sink reached: read at line {} by `{callee}`, which broadcasts it; `expand` would do only if the repeated dims are 1, which is not known here",
                        lines.row(call.start()),
                    )
                }
                NextUse::PassedTo { callee, at: call } => format!(
                    "no sink reached: lost at line {}, at a call the analysis does not follow (`{callee}`){}",
                    lines.row(call.start()),
                    ambiguous_method(summaries, &callee)
                ),
                NextUse::Returned { at: ret } => format!(
                    "no sink reached: returned at line {} (a caller that converts it is reported there)",
                    lines.row(ret.start())
                ),
                NextUse::ReadBy { consumer, at: read } => format!(
                    "no sink reached: read by `{consumer}` at line {}, which the analysis does not count as a full-size write (a reduction, a view, or an operand already full-size)",
                    lines.row(read.start())
                ),
                NextUse::ReadOnly => {
                    "no sink reached: read only by ops that keep it small or take the view".into()
                }
                NextUse::Unused => "no sink reached: the value is not read afterwards".into(),
                NextUse::NotBound => "no sink reached".into(),
            }
        });
    }
    out.sort_by_key(|(r, _)| (r.start(), r.end()));
    FileSites {
        file: display,
        enlargements: out.into_iter().map(|(_, f)| f).collect(),
        note: None,
    }
}

/// The fate of a site the selection kept: the rule that reports it, or why it does not.
fn conversion_fate(
    site: &Site,
    ctx: &RuleContext,
    settings: &Settings,
    path: &Path,
    reported: &[Diagnostic],
    lines: &Lines,
    text: &str,
) -> (Option<&'static str>, &'static str, String) {
    let finding = match rules::check_site_explained(site, ctx) {
        Ok(finding) => finding,
        Err(dropped) => return (None, "not-reported", dropped.describe(site)),
    };
    let code = finding.rule.code;
    if !settings.is_enabled(code, path) {
        let why = if finding.rule.default {
            format!("{code} is not selected")
        } else {
            format!(
                "{code} ({}) claims it, and is opt-in: select it to report it",
                finding.rule.name
            )
        };
        return (Some(code), "not-reported", why);
    }
    let location = lines.position(text, site.sink_step.range.start());
    if let Some(d) = reported
        .iter()
        .find(|d| d.rule.code == code && d.location == location)
    {
        // The level `check` gave it (evidence may have raised it).
        let level = d.level.as_str();
        (
            Some(code),
            "reported",
            format!("reported as {code} ({level})"),
        )
    } else {
        (
            Some(code),
            "not-reported",
            "suppressed by a comment".to_string(),
        )
    }
}

fn kind_name(kind: EnlargeKind) -> &'static str {
    match kind {
        EnlargeKind::View => "view",
        EnlargeKind::Copy => "copy",
    }
}

/// The code of a method call from its name (`.bool()`), whitespace collapsed, as sites show it.
fn method_code(text: &str, range: TextRange) -> String {
    let code = text
        .get(range.to_std_range())
        .unwrap_or("")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let start = range.start().to_usize();
    if text
        .get(..start)
        .is_some_and(|before| before.trim_end().ends_with('.'))
    {
        format!(".{code}")
    } else {
        code
    }
}

/// For `obj.meth` of an object whose class is not known: why no guess was made when several
/// classes of the project define `meth`.
fn ambiguous_method(summaries: &SummaryTable, callee: &str) -> String {
    let Some((_, name)) = callee.rsplit_once('.') else {
        return String::new();
    };
    match summaries.method_count(name) {
        n if n >= 2 => format!(": {n} classes of the project define `{name}`"),
        _ => String::new(),
    }
}

/// `torch.where`, `torch.add`, `torch.special.chebyshev_polynomial_t`: a `torch` function the op table calls pointwise
/// with tensor operands, which broadcasts each of them (no full-size write of a copy it reads).
fn broadcasting_torch_function(callee: &str) -> bool {
    let Some((module, name)) = callee.rsplit_once('.') else {
        return false;
    };
    (module == "torch" || module.starts_with("torch."))
        && analysis::op_table::function(module, name)
            .is_some_and(analysis::op_table::OpInfo::broadcasts_operands)
}
