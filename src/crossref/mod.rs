//! Joins evidence (profiles, CUDA snapshots, Ascend folders, OOM logs) to the findings of a lint
//! run: the largest measured allocation at a finding's line becomes its `evidence`; lines the
//! profile names without a static finding get OOM201 (a materialized broadcast) or OOM202 (a
//! large allocation); OOM failures get OOM203; findings are then sorted by measured bytes.
//!
//! Paths, lines and functions are matched by [`locate`]; the wording of the new findings comes
//! from their rules.

pub mod learn_dims;
mod locate;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::diagnostic::{Diagnostic, Measured, MeasuredSource, OomFigures};
use crate::evidence::report::{
    is_materialized_broadcast, is_static as is_static_allocation, live_at, main_series,
    step_start_ns, user_frame,
};
use crate::evidence::{Allocation, DeviceKind, Evidence, EvidenceKind, Frame, OomEvent};
use crate::model::{FileIndex, FileReport, LintResult};
use crate::rules::{self, ProfileFinding};
use crate::source::{Lines, Position, TextRange, TextSize};
use locate::{Joiner, LineMatch, Target, holds_row, resolve_line};

/// One file of the linted tree.
pub struct LintedFile {
    pub display: Arc<str>,
    /// The path as found (relative or absolute); made absolute for matching.
    pub path: PathBuf,
    /// The text when already at hand (stdin); otherwise read when the evidence points into it.
    pub text: Option<Arc<str>>,
}

pub struct JoinOptions<'a> {
    /// Hide measured findings below this many bytes per allocation; also the OOM202 threshold.
    pub min_bytes: Option<u64>,
    pub path_map: &'a [(String, PathBuf)],
    /// Files bigger than this are not read (`--max-file-size`).
    pub max_file_size: u64,
    /// Is a profile rule enabled for this file (`None`: a location outside the linted tree)?
    pub enabled: &'a dyn Fn(&'static str, Option<&Path>) -> bool,
    /// Is this linted file a test file (`test-files`; its findings are warnings)?
    pub is_test_file: &'a dyn Fn(&Path) -> bool,
}

/// The name of an evidence kind as JSON writes it.
pub fn kind_name(kind: EvidenceKind) -> &'static str {
    match kind {
        EvidenceKind::ChromeTrace => "chrome_trace",
        EvidenceKind::CudaSnapshot => "cuda_snapshot",
        EvidenceKind::AscendFolder => "ascend_folder",
        EvidenceKind::OomLog => "oom_log",
    }
}

fn device_name(kind: &DeviceKind, index: Option<i64>) -> String {
    let name = match kind {
        DeviceKind::Cpu => return "CPU".to_string(),
        DeviceKind::Cuda => "CUDA",
        DeviceKind::Npu => "NPU",
        DeviceKind::Other(o) => o.as_str(),
    };
    match index {
        Some(i) => format!("{name} {i}"),
        None => name.to_string(),
    }
}

fn line_match_name(m: Option<LineMatch>) -> &'static str {
    match m {
        Some(LineMatch::Exact) => "exact",
        Some(LineMatch::Moved) => "moved",
        Some(LineMatch::Unchecked) => "unchecked",
        Some(LineMatch::InFunction) => "in_function",
        Some(LineMatch::AmbiguousInFunction) => "in_function_ambiguous",
        None => "unlocated",
    }
}

/// Where a measurement came from: the evidence file and the frame that placed it.
fn measured_source(ev: &Evidence, frame: &Frame, how: Option<LineMatch>) -> MeasuredSource {
    MeasuredSource {
        path: ev.path.display().to_string(),
        kind: kind_name(ev.kind).to_string(),
        file: frame.file.clone(),
        line: frame.line,
        line_match: line_match_name(how).to_string(),
    }
}

fn measured_from(
    a: &Allocation,
    ev: &Evidence,
    frame: &Frame,
    how: Option<LineMatch>,
    peak: Option<u64>,
) -> Measured {
    Measured {
        bytes: a.bytes,
        calls: a.count,
        total_bytes: a.bytes.saturating_mul(a.count),
        live_at_peak_bytes: 0,
        peak_share: peak.filter(|&p| p > 0).map(|p| a.bytes as f64 / p as f64),
        op: a.op.clone(),
        op_chain: a.op_chain.clone(),
        input_shapes: a.input_shapes.clone(),
        input_strides: a.input_strides.clone(),
        input_dtypes: a.input_dtypes.clone(),
        materialized_broadcast: is_materialized_broadcast(a),
        source: measured_source(ev, frame, how),
        oom: None,
    }
}

fn oom_measured(o: &OomEvent, ev: &Evidence, frame: &Frame, how: Option<LineMatch>) -> Measured {
    let bytes = o.requested_bytes.unwrap_or(0);
    Measured {
        bytes,
        calls: 1,
        total_bytes: bytes,
        // The request that failed is what the line needed at the moment memory ran out.
        live_at_peak_bytes: bytes,
        peak_share: None,
        op: None,
        op_chain: Vec::new(),
        input_shapes: Vec::new(),
        input_strides: Vec::new(),
        input_dtypes: Vec::new(),
        materialized_broadcast: false,
        source: measured_source(ev, frame, how),
        oom: Some(OomFigures {
            device: device_name(&o.device_kind, o.device_index),
            requested_bytes: o.requested_bytes,
            capacity_bytes: o.capacity_bytes,
            allocated_bytes: o.allocated_bytes,
            reserved_bytes: o.reserved_bytes,
            free_bytes: o.free_bytes,
            approximate: o.sizes_approximate,
            message: o.message.clone(),
        }),
    }
}

/// Byte range and positions of the text of `row` without its indentation.
fn line_span(text: &str, row: u32) -> (TextRange, Position, Position) {
    let lines = Lines::new(text);
    let range = lines.line_range(row as usize, text);
    let line = &text[range.start().to_usize()..range.end().to_usize()];
    let indent = line.len() - line.trim_start().len();
    let trail = line.len() - line.trim_end().len();
    let start = range.start() + TextSize::from(indent as u32);
    let end = (range.end() - TextSize::from(trail as u32)).max(start);
    let range = TextRange::new(start, end);
    (
        range,
        lines.position(text, range.start()),
        lines.position(text, range.end()),
    )
}

fn profile_diagnostic(
    finding: ProfileFinding,
    file: Arc<str>,
    text: Option<&str>,
    row: u32,
    measured: Measured,
    in_test_file: bool,
) -> Diagnostic {
    let (range, location, end_location, label) = match text {
        Some(t) => {
            let (r, a, b) = line_span(t, row);
            (r, a, b, finding.primary_label)
        }
        None => {
            let at = Position {
                row: row as usize,
                column: 1,
            };
            (TextRange::default(), at, at, String::new())
        }
    };
    Diagnostic {
        rule: finding.rule,
        level: rules::level::rule_level(finding.rule, in_test_file),
        pattern_certain: false,
        in_test_file,
        message: finding.message,
        file,
        range,
        location,
        end_location,
        primary_label: label,
        labels: Vec::new(),
        help: finding.help,
        notes: finding.notes,
        fix: None,
        noqa_row: text.map(|_| location.row),
        cell: None,
        stmt_rows: text.map(|_| (location.row, location.row)),
        evidence: Some(Box::new(measured)),
        size: None,
    }
}

/// Attaches the evidence to `result` (see the module documentation). `files` are the linted
/// files, with displays equal to the reports'.
pub fn attach(
    result: &mut LintResult,
    files: &[LintedFile],
    evidence: &[Evidence],
    opts: &JoinOptions,
) {
    let mut joiner = Joiner::new(result, files, opts.path_map, opts.max_file_size);

    // Group identical allocations per evidence, target, op and size.
    type Key = (usize, Target, Option<String>, u64);
    let mut groups: Vec<(Key, Measured)> = Vec::new();
    let mut slot: HashMap<Key, usize> = HashMap::new();
    let mut ooms: Vec<(Target, Measured)> = Vec::new();
    for (ei, ev) in evidence.iter().enumerate() {
        let peak_point = main_series(ev).and_then(|s| s.peak_allocated());
        let peak = peak_point.and_then(|p| p.allocated);
        let peak_time = peak_point.map(|p| p.time_ns);
        let step_start = step_start_ns(ev);
        for a in &ev.allocations {
            // Weights, optimizer state and caches are the static memory `profile` reports
            // first; they are not a line to fix.
            if is_static_allocation(a, step_start) {
                continue;
            }
            let live = peak_time.map_or(0, |t| live_at(a, t));
            let Some((target, frame, how)) = joiner.locate(result, &a.stack, a.op.as_deref())
            else {
                continue;
            };
            let key: Key = (ei, target, a.op.clone(), a.bytes);
            match slot.get(&key) {
                Some(&i) => {
                    let m = &mut groups[i].1;
                    m.calls += a.count;
                    m.total_bytes = m.bytes.saturating_mul(m.calls);
                    m.materialized_broadcast |= is_materialized_broadcast(a);
                    m.live_at_peak_bytes = m.live_at_peak_bytes.saturating_add(live);
                }
                None => {
                    slot.insert(key.clone(), groups.len());
                    let mut m = measured_from(a, ev, &frame, how, peak);
                    m.live_at_peak_bytes = live;
                    groups.push((key, m));
                }
            }
        }
        for o in &ev.ooms {
            let Some(frame) = o.frame.clone().or_else(|| user_frame(&o.stack).cloned()) else {
                continue;
            };
            let printed = o.source_line.as_deref();
            let mut placed = None;
            if let Some(fi) = joiner.index.resolve(&frame.file)
                && let Some(text) = joiner.text(fi)
                && let Some((row, how)) = resolve_line(&text, frame.line, printed)
            {
                placed = Some((Target::Line(fi, row), Some(how)));
            }
            let (target, how) =
                placed.unwrap_or_else(|| (Target::Unlocated(frame.file.clone(), frame.line), None));
            ooms.push((target, oom_measured(o, ev, &frame, how)));
        }
    }

    // Static findings take the largest group at their line. Measured bytes are a stated size:
    // a certain pattern measured at or above `min-bytes` (default: the static threshold,
    // `min-static-bytes`' default) is an error.
    let stated_large = opts.min_bytes.unwrap_or(rules::DEFAULT_MIN_STATIC_BYTES);
    let mut line_groups: Vec<(Target, Measured)> = Vec::new();
    for ((_, target, _, _), m) in groups {
        match target {
            Target::Diag(ri, di) => {
                let d = &mut result.reports[ri].diagnostics[di];
                if d.evidence.as_ref().is_none_or(|e| e.rank() < m.rank()) {
                    if d.pattern_certain && m.bytes >= stated_large && !d.in_test_file {
                        d.level = crate::diagnostic::Level::Error;
                    }
                    d.evidence = Some(Box::new(m));
                }
            }
            t => line_groups.push((t, m)),
        }
    }

    // Lines without a static finding: one OOM201 or OOM202 per line.
    let threshold = opts.min_bytes.unwrap_or(rules::DEFAULT_MIN_BYTES);
    let mut best: Vec<(Target, Option<Measured>, Option<Measured>)> = Vec::new();
    for (t, m) in line_groups {
        let i = match best.iter().position(|(x, _, _)| *x == t) {
            Some(i) => i,
            None => {
                best.push((t, None, None));
                best.len() - 1
            }
        };
        let entry = if m.materialized_broadcast {
            &mut best[i].1
        } else {
            &mut best[i].2
        };
        if entry.as_ref().is_none_or(|e| e.rank() < m.rank()) {
            *entry = Some(m);
        }
    }
    let mut new: Vec<Diagnostic> = Vec::new();
    let in_test_file = |joiner: &Joiner, t: &Target| -> bool {
        match t {
            Target::Line(fi, _) => (opts.is_test_file)(&joiner.files[*fi].path),
            _ => false,
        }
    };
    let place = |joiner: &mut Joiner, t: &Target| -> (Arc<str>, Option<Arc<str>>, u32) {
        match t {
            Target::Line(fi, row) => (joiner.files[*fi].display.clone(), joiner.text(*fi), *row),
            Target::Unlocated(file, line) => (Arc::from(file.as_str()), None, *line),
            Target::Diag(..) => (Arc::from(""), None, 0),
        }
    };
    let rule_on = |code: &'static str, joiner: &Joiner, t: &Target| -> bool {
        match t {
            Target::Line(fi, _) => (opts.enabled)(code, Some(&joiner.files[*fi].path)),
            _ => (opts.enabled)(code, None),
        }
    };
    let ctx = rules::EvidenceContext {
        min_bytes: threshold,
    };
    for (t, mat, large) in best {
        // The rules in precedence order, each offered the candidate of its kind.
        let [first, second] = rules::line_evidence_rules();
        let found = [(first, mat), (second, large)]
            .into_iter()
            .find_map(|(rule, m)| {
                let m = m?;
                if !rule_on(rule.code, &joiner, &t) {
                    return None;
                }
                rules::check_evidence(rule, &m, &ctx).map(|f| (f, m))
            });
        if let Some((f, m)) = found {
            let test = in_test_file(&joiner, &t);
            let (file, text, row) = place(&mut joiner, &t);
            new.push(profile_diagnostic(f, file, text.as_deref(), row, m, test));
        }
    }
    for (t, m) in ooms {
        if !rule_on(rules::OOM_SITE.code, &joiner, &t) {
            continue;
        }
        let Some(f) = rules::check_evidence(&rules::OOM_SITE, &m, &ctx) else {
            continue;
        };
        let test = in_test_file(&joiner, &t);
        let (file, text, row) = place(&mut joiner, &t);
        new.push(profile_diagnostic(f, file, text.as_deref(), row, m, test));
    }

    // Suppression comments (`# noqa: OOM202`, file-level `# oomlint: noqa`) at the new lines,
    // as the linter indexed them.
    let indexes: HashMap<Arc<str>, Arc<FileIndex>> = result
        .reports
        .iter()
        .filter_map(|r| Some((r.display.clone(), r.index.clone()?)))
        .collect();
    new.retain(|d| {
        d.primary_label.is_empty()
            || indexes.get(&d.file).is_none_or(|ix| {
                !ix.suppressions
                    .is_suppressed(d.rule.code, d.location.row, d.location.row)
            })
    });

    // Sources of the files the new findings point into, for rendering.
    for d in &new {
        if d.primary_label.is_empty() || result.sources.contains_key(&d.file) {
            continue;
        }
        if let Some(fi) = files.iter().position(|f| f.display == d.file)
            && let Some(t) = joiner.text(fi)
        {
            result.sources.insert(d.file.clone(), t);
        }
    }

    // Flatten, filter by min-bytes, sort by measured bytes, regroup by file.
    let mut all: Vec<Diagnostic> = std::mem::take(&mut result.reports)
        .into_iter()
        .flat_map(|r| r.diagnostics)
        .chain(new)
        .collect();
    if let Some(min) = opts.min_bytes {
        all.retain(|d| d.evidence.as_ref().is_none_or(|e| e.bytes >= min));
    }
    all.sort_by_key(|d| std::cmp::Reverse(d.evidence.as_ref().map(|e| e.rank())));
    let mut reports: Vec<FileReport> = Vec::new();
    for d in all {
        match reports.last_mut() {
            Some(r) if r.display == d.file => r.diagnostics.push(d),
            _ => reports.push(FileReport {
                display: d.file.clone(),
                source: result.sources.get(&d.file).cloned(),
                index: indexes.get(&d.file).cloned(),
                diagnostics: vec![d],
            }),
        }
    }
    result.reports = reports;
}

/// A static finding shown next to a profile site.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SiteFinding {
    /// The rule's code and name, as in `Diagnostic::rule`.
    pub code: &'static str,
    pub name: &'static str,
    pub message: String,
    pub row: usize,
    pub help: Option<String>,
}

impl From<&Diagnostic> for SiteFinding {
    fn from(d: &Diagnostic) -> Self {
        SiteFinding {
            code: d.rule.code,
            name: d.rule.name,
            message: d.message.clone(),
            row: d.location.row,
            help: d.help.clone(),
        }
    }
}

/// The source line a profile frame points to, with the static findings there.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SiteSource {
    pub file: Arc<str>,
    pub line: u32,
    pub text: String,
    /// How the line was placed (see [`MeasuredSource::line_match`]).
    pub line_match: &'static str,
    pub findings: Vec<SiteFinding>,
}

/// Finds the source of profile frames in a linted tree (for `oomlint profile --source`).
pub struct Locator<'a> {
    joiner: Joiner<'a>,
}

impl<'a> Locator<'a> {
    pub fn new(
        result: &LintResult,
        files: &'a [LintedFile],
        path_map: &[(String, PathBuf)],
    ) -> Self {
        Locator {
            // `oomlint profile` has no `--max-file-size`.
            joiner: Joiner::new(
                result,
                files,
                path_map,
                crate::source::DEFAULT_MAX_FILE_SIZE,
            ),
        }
    }

    /// The source line of `frame` and the findings of `result` there, if it is in the tree;
    /// `op`, the measured operator, places a function-level frame on its expression.
    pub fn site(
        &mut self,
        result: &LintResult,
        frame: &Frame,
        op: Option<&str>,
    ) -> Option<SiteSource> {
        let (target, _, how) = self
            .joiner
            .locate(result, std::slice::from_ref(frame), op)?;
        let (file, row, findings) = match target {
            Target::Diag(ri, di) => {
                let d = &result.reports[ri].diagnostics[di];
                (d.file.clone(), d.location.row as u32, vec![d.into()])
            }
            Target::Line(fi, row) => {
                let findings = self
                    .joiner
                    .report_of
                    .get(&fi)
                    .map(|&ri| {
                        result.reports[ri]
                            .diagnostics
                            .iter()
                            .filter(|d| holds_row(d, row as usize))
                            .map(SiteFinding::from)
                            .collect()
                    })
                    .unwrap_or_default();
                (self.joiner.files[fi].display.clone(), row, findings)
            }
            Target::Unlocated(..) => return None,
        };
        let fi = self.joiner.files.iter().position(|f| f.display == file)?;
        let text = self
            .joiner
            .text(fi)
            .and_then(|t| {
                t.lines()
                    .nth(row as usize - 1)
                    .map(|l| l.trim().to_string())
            })
            .unwrap_or_default();
        Some(SiteSource {
            file,
            line: row,
            text,
            line_match: line_match_name(how),
            findings,
        })
    }
}
