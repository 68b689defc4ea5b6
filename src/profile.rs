//! `oomlint profile`: the memory report of docs/design.md section 5 for one or more pieces of
//! evidence (peak, static, gap, hot allocations, source findings), the scaling across profiles
//! labelled (or inferred) with a dimension value, and the prediction at a target value.
//!
//! This module computes the report as data; `report::profile` renders it.

use std::collections::HashMap;

use serde::Serialize;

use crate::crossref::{Locator, SiteSource};
use crate::evidence::report::{
    HotAllocation, LinearFit, ProfileReport, analyze, fit_linear, fit_peak, fit_sites,
    is_materialized_broadcast, main_series, user_frame,
};
use crate::evidence::series::downsample;
use crate::evidence::what_if::series_after_fix;
use crate::evidence::{Allocation, Evidence, Frame};
use crate::fmt::{Bytes, ShapeStyle, shape};
use crate::model::LintResult;

/// A profile's dimension value (`PATH@batch_size=2`, or inferred).
#[derive(Clone, Debug, Serialize)]
pub(crate) struct DimLabel {
    pub name: String,
    pub value: f64,
}

/// One point of the memory plot (relative time).
#[derive(Clone, Copy, Debug, Serialize)]
pub(crate) struct PlotPoint {
    pub t_ns: i64,
    pub allocated: Option<u64>,
    pub reserved: Option<u64>,
}

/// One hot allocation instance on the plot.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct PlotMarker {
    /// Rank in the hot list (0 = hottest).
    pub hot: usize,
    pub start_ns: i64,
    pub end_ns: Option<i64>,
    pub bytes: u64,
    pub level_after: Option<u64>,
    pub title: String,
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct ProfileEntry {
    pub label: Option<DimLabel>,
    #[serde(flatten)]
    pub report: ProfileReport,
    /// Per hot allocation (same order as `hot`): its source line in `--source`, when found.
    pub sources: Vec<Option<SiteSource>>,
    #[serde(skip)]
    pub plot: Vec<PlotPoint>,
    #[serde(skip)]
    pub markers: Vec<PlotMarker>,
    /// The plot with the largest-saving fix applied (empty when nothing would change).
    #[serde(skip)]
    pub plot_after_fix: Vec<PlotPoint>,
    /// Time of the first point of the main series (plot times are relative to it).
    pub series_start_ns: Option<i64>,
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct SiteScaling {
    pub op: Option<String>,
    pub file: Option<String>,
    pub line: Option<u32>,
    /// `(dimension value, bytes)` per profile.
    pub points: Vec<(f64, u64)>,
    pub bytes_per_unit: f64,
    pub intercept: f64,
    /// Bytes predicted at the `--predict` value.
    pub predicted_bytes: Option<f64>,
    /// The frame the evidence names (its line may be a `def` row, placed by the source).
    #[serde(skip)]
    pub frame: Option<Frame>,
}

/// The site a prediction names, with its source and static findings.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct PredictedSite {
    pub op: Option<String>,
    pub file: Option<String>,
    pub line: Option<u32>,
    /// The allocation's predicted size.
    pub predicted_bytes: f64,
    /// Predicted allocator total right after it (for the first site exceeding capacity).
    pub predicted_total_bytes: Option<f64>,
    pub source: Option<SiteSource>,
}

/// The prediction with the top fix applied: the peaks after the fix, fitted like the peaks.
#[derive(Clone, Debug, Serialize)]
pub struct AfterFix {
    pub file: String,
    pub line: u32,
    /// `(dimension value, peak after the fix)` per profile.
    pub peaks_after_fix: Vec<(f64, u64)>,
    pub peak_after_fix_bytes_per_unit: f64,
    pub peak_after_fix_intercept: f64,
    /// At the `--predict` value.
    pub predicted_peak_after_fix_bytes: Option<f64>,
    /// With `--capacity`: whether the predicted peak after the fix fits.
    pub fits_after_fix: Option<bool>,
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct Prediction {
    pub name: String,
    pub value: f64,
    pub peak_bytes: f64,
    pub capacity_bytes: Option<u64>,
    pub exceeds_capacity: Option<bool>,
    /// With `--capacity`: the first allocation whose predicted running total exceeds it.
    pub first_exceeding: Option<PredictedSite>,
    /// The largest allocation still held when the capacity is first exceeded (often the one
    /// to fix, even when a smaller allocation tips the total over).
    pub largest_live: Option<PredictedSite>,
    /// The site with the largest predicted allocation.
    pub largest_site: Option<PredictedSite>,
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct Scaling {
    pub dimension: String,
    pub inferred: bool,
    /// What was inferred and from which shapes.
    pub explanation: Option<String>,
    /// `(dimension value, peak allocated bytes)` per profile.
    pub peaks: Vec<(f64, u64)>,
    pub peak_bytes_per_unit: f64,
    pub peak_intercept: f64,
    pub sites: Vec<SiteScaling>,
    pub prediction: Option<Prediction>,
    /// The scaling with the largest-saving fix applied in every profile, when each profile
    /// shows that line materializing a broadcast view.
    pub after_fix: Option<AfterFix>,
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct ProfileOutput {
    pub profiles: Vec<ProfileEntry>,
    pub scaling: Option<Scaling>,
    /// Why scaling or prediction could not be done, when asked for.
    pub notes: Vec<String>,
}

/// What the command asks for.
pub(crate) struct ProfileRequest {
    pub top: usize,
    /// `--predict NAME=VALUE`.
    pub predict: Option<(String, f64)>,
    pub capacity: Option<u64>,
}

/// The source tree (`--source`): a lint result and its files.
pub(crate) struct SourceTree<'a> {
    pub result: &'a LintResult,
    pub files: &'a [crate::crossref::LintedFile],
    pub path_map: &'a [(String, std::path::PathBuf)],
}

const PLOT_POINTS: usize = 1500;

fn plot_of(ev: &Evidence) -> Vec<PlotPoint> {
    let Some(s) = main_series(ev) else {
        return Vec::new();
    };
    let t0 = s.points.first().map_or(0, |p| p.time_ns);
    // The readers' down-sampler, with a plot's budget of points.
    let kept = downsample(s, PLOT_POINTS, ev.first_op_time_ns);
    kept.points
        .iter()
        .map(|p| PlotPoint {
            t_ns: p.time_ns.saturating_sub(t0),
            allocated: p.allocated,
            reserved: p.reserved,
        })
        .collect()
}

type SiteKey = (u64, Option<String>, Option<(String, u32)>);

fn site_key(bytes: u64, op: &Option<String>, site: Option<&Frame>) -> SiteKey {
    (bytes, op.clone(), site.map(|f| (f.file.clone(), f.line)))
}

fn markers_of(ev: &Evidence, hot: &[HotAllocation]) -> Vec<PlotMarker> {
    let t0 = main_series(ev)
        .and_then(|s| s.points.first())
        .map_or(0, |p| p.time_ns);
    let index: HashMap<SiteKey, usize> = hot
        .iter()
        .enumerate()
        .map(|(i, h)| (site_key(h.bytes, &h.op, h.site.as_ref()), i))
        .collect();
    let mut out = Vec::new();
    for a in &ev.allocations {
        let Some(start) = a.alloc_time_ns else {
            continue;
        };
        let key = site_key(a.bytes, &a.op, user_frame(&a.stack));
        let Some(&i) = index.get(&key) else {
            continue;
        };
        let site = user_frame(&a.stack)
            .map(|f| format!("{}:{}", f.file, f.line))
            .unwrap_or_else(|| "?".to_string());
        let shapes: Vec<String> = a
            .input_shapes
            .iter()
            .filter(|s| !s.is_empty())
            .map(|s| shape(s, ShapeStyle::Compact))
            .collect();
        let title = format!(
            "#{} {} {} B at {}{}{}",
            i + 1,
            a.op.as_deref().unwrap_or("allocation"),
            Bytes(a.bytes).grouped(),
            site,
            if shapes.is_empty() {
                String::new()
            } else {
                format!(", input {}", shapes.join(" "))
            },
            if is_materialized_broadcast(a) {
                ", materialized broadcast"
            } else {
                ""
            }
        );
        out.push(PlotMarker {
            hot: i,
            start_ns: start.saturating_sub(t0),
            end_ns: a.free_time_ns.map(|t| t.saturating_sub(t0)),
            bytes: a.bytes,
            level_after: a.total_allocated_after,
            title,
        });
    }
    out
}

/// Alignment key of one allocation across profiles of the same program: op, user line, and
/// the occurrence number of that pair.
type AlignKey = (Option<String>, Option<(String, u32)>, usize);

/// An op and its user line.
type OpSite = (Option<String>, Option<(String, u32)>);

fn aligned(ev: &Evidence) -> Vec<(AlignKey, &Allocation)> {
    let mut allocs: Vec<&Allocation> = ev.allocations.iter().collect();
    allocs.sort_by_key(|a| a.alloc_time_ns.unwrap_or(i64::MIN));
    let mut seen: HashMap<OpSite, usize> = HashMap::new();
    allocs
        .into_iter()
        .map(|a| {
            let site = user_frame(&a.stack).map(|f| (f.file.clone(), f.line));
            let n = seen.entry((a.op.clone(), site.clone())).or_insert(0);
            let key = (a.op.clone(), site, *n);
            *n += 1;
            (key, a)
        })
        .collect()
}

/// Infers each profile's value of the dimension that varies across them from the input shapes
/// of aligned operators: the most common vector of differing dim values.
fn infer_values(evs: &[&Evidence]) -> Option<(Vec<f64>, String)> {
    let maps: Vec<HashMap<AlignKey, &Allocation>> = evs
        .iter()
        .map(|e| aligned(e).into_iter().collect())
        .collect();
    let first = aligned(evs[0]);
    let mut votes: HashMap<Vec<i64>, (usize, String)> = HashMap::new();
    let mut total = 0usize;
    for (key, a0) in &first {
        let others: Option<Vec<&Allocation>> = maps.iter().map(|m| m.get(key).copied()).collect();
        let Some(all) = others else {
            continue;
        };
        for (inp, shape0) in a0.input_shapes.iter().enumerate() {
            for (d, _) in shape0.iter().enumerate() {
                let vals: Option<Vec<i64>> = all
                    .iter()
                    .map(|a| {
                        let s = a.input_shapes.get(inp)?;
                        (s.len() == shape0.len()).then(|| s[d])
                    })
                    .collect();
                let Some(vals) = vals else {
                    continue;
                };
                if vals.iter().all(|&v| v == vals[0]) || vals.iter().any(|&v| v <= 0) {
                    continue;
                }
                total += 1;
                let e = votes.entry(vals.clone()).or_insert_with(|| {
                    let shapes: Vec<String> = all
                        .iter()
                        .map(|a| {
                            a.input_shapes
                                .get(inp)
                                .map_or(String::new(), |s| shape(s, ShapeStyle::Compact))
                        })
                        .collect();
                    (
                        0,
                        format!(
                            "dim {d} of input {inp} of {} ({})",
                            a0.op.as_deref().unwrap_or("an operator"),
                            shapes.join(" vs ")
                        ),
                    )
                });
                e.0 += 1;
            }
        }
    }
    let (vals, (count, example)) = votes
        .into_iter()
        .max_by(|a, b| a.1.0.cmp(&b.1.0).then(b.0.cmp(&a.0)))?;
    let values: Vec<f64> = vals.iter().map(|&v| v as f64).collect();
    let list: Vec<String> = vals.iter().map(i64::to_string).collect();
    Some((
        values,
        format!(
            "values {} inferred from {count} of {total} differing operator input dims, e.g. {example}",
            list.join(", ")
        ),
    ))
}

fn site_parts(site: &Option<Frame>) -> (Option<String>, Option<u32>) {
    (
        site.as_ref().map(|f| f.file.clone()),
        site.as_ref().map(|f| f.line),
    )
}

/// Builds the report. `evidence` is the loaded evidence with the label given on the command line.
pub(crate) fn build(
    evidence: &[(Evidence, Option<(String, f64)>)],
    request: &ProfileRequest,
    source: Option<&SourceTree>,
) -> ProfileOutput {
    let mut locator = source.map(|s| Locator::new(s.result, s.files, s.path_map));
    let mut locate = |frame: Option<&Frame>, op: Option<&str>| -> Option<SiteSource> {
        let (loc, tree) = (locator.as_mut()?, source?);
        loc.site(tree.result, frame?, op)
    };
    let mut notes = Vec::new();
    let mut profiles = Vec::new();
    let mut full_reports = Vec::new();
    for (ev, label) in evidence {
        let full = analyze(ev, usize::MAX);
        let mut report = full.clone();
        report.hot.truncate(request.top);
        let sources = report
            .hot
            .iter()
            .map(|h| locate(h.site.as_ref(), h.op.as_deref()))
            .collect();
        let plot = plot_of(ev);
        let markers = markers_of(ev, &report.hot);
        let plot_after_fix = full
            .fix_effects
            .first()
            .and_then(|fe| series_after_fix(ev, &fe.file, fe.line))
            .map(|series| {
                // The same plot conversion, over the adjusted series alone.
                let mut adjusted = Evidence::new(ev.kind, &ev.path);
                adjusted.series = vec![series];
                plot_of(&adjusted)
            })
            .unwrap_or_default();
        profiles.push(ProfileEntry {
            label: label.as_ref().map(|(n, v)| DimLabel {
                name: n.clone(),
                value: *v,
            }),
            report,
            sources,
            plot,
            markers,
            plot_after_fix,
            series_start_ns: main_series(ev)
                .and_then(|s| s.points.first())
                .map(|p| p.time_ns),
        });
        full_reports.push(full);
    }

    // Scaling: needs two or more profiles with peaks.
    let usable: Vec<usize> = (0..evidence.len())
        .filter(|&i| full_reports[i].peak.is_some())
        .collect();
    let mut scaling = None;
    if usable.len() >= 2 {
        let labelled = usable.iter().all(|&i| evidence[i].1.is_some());
        let mut name = request
            .predict
            .as_ref()
            .map_or_else(|| "dim".to_string(), |p| p.0.clone());
        let mut explanation = None;
        let values: Option<Vec<f64>> = if labelled {
            let names: Vec<&str> = usable
                .iter()
                .filter_map(|&i| evidence[i].1.as_ref().map(|l| l.0.as_str()))
                .collect();
            if let Some(n) = names.first() {
                name = n.to_string();
            }
            Some(
                usable
                    .iter()
                    .filter_map(|&i| evidence[i].1.as_ref().map(|l| l.1))
                    .collect(),
            )
        } else {
            let evs: Vec<&Evidence> = usable.iter().map(|&i| &evidence[i].0).collect();
            match infer_values(&evs) {
                Some((v, why)) => {
                    explanation = Some(format!("{name}: {why}"));
                    Some(v)
                }
                None => {
                    notes.push(
                        "no labels (PATH@NAME=VALUE) and no operator dimension varies across the profiles: no scaling".to_string(),
                    );
                    None
                }
            }
        };
        if let Some(values) = values {
            for (&i, &v) in usable.iter().zip(&values) {
                if profiles[i].label.is_none() {
                    profiles[i].label = Some(DimLabel {
                        name: name.clone(),
                        value: v,
                    });
                }
            }
            let pairs: Vec<(f64, &ProfileReport)> = usable
                .iter()
                .zip(&values)
                .map(|(&i, &v)| (v, &full_reports[i]))
                .collect();
            if let Some(peak_fit) = fit_peak(&pairs) {
                let target = request.predict.as_ref().map(|p| p.1);
                if let Some((asked, _)) = &request.predict
                    && *asked != name
                {
                    notes.push(format!(
                        "--predict names `{asked}` but the profiles are labelled with `{name}`; predicting at that value of `{name}`"
                    ));
                }
                let sites: Vec<SiteScaling> = fit_sites(&pairs)
                    .into_iter()
                    .filter(|s| s.fit.slope.abs() > 0.5)
                    .map(|s| {
                        let (file, line) = site_parts(&s.site);
                        SiteScaling {
                            op: s.op.clone(),
                            file,
                            line,
                            points: s.points.clone(),
                            bytes_per_unit: s.fit.slope,
                            intercept: s.fit.intercept,
                            predicted_bytes: target.map(|t| s.fit.predict(t)),
                            frame: s.site.clone(),
                        }
                    })
                    .collect();
                let prediction = target.map(|t| {
                    predict(
                        &name,
                        t,
                        peak_fit,
                        &pairs,
                        &usable.iter().map(|&i| &evidence[i].0).collect::<Vec<_>>(),
                        &sites,
                        request.capacity,
                        &mut locate,
                    )
                });
                let after_fix = after_fix_scaling(&pairs, target, request.capacity);
                scaling = Some(Scaling {
                    after_fix,
                    dimension: name,
                    inferred: !labelled,
                    explanation,
                    peaks: pairs
                        .iter()
                        .filter_map(|(v, r)| Some((*v, r.peak.as_ref()?.allocated_bytes)))
                        .collect(),
                    peak_bytes_per_unit: peak_fit.slope,
                    peak_intercept: peak_fit.intercept,
                    sites,
                    prediction,
                });
            } else {
                notes.push("the profiles have the same dimension value: no scaling".to_string());
            }
        }
    } else if request.predict.is_some() {
        notes.push(
            "--predict needs two or more profiles of the same program with memory series"
                .to_string(),
        );
    }
    ProfileOutput {
        profiles,
        scaling,
        notes,
    }
}

/// Fits the peaks after fixing the line whose fix saves most in the largest profile, over every
/// profile that shows it; `None` unless at least two do.
fn after_fix_scaling(
    pairs: &[(f64, &ProfileReport)],
    target: Option<f64>,
    capacity: Option<u64>,
) -> Option<AfterFix> {
    let (_, largest) = pairs.iter().max_by(|a, b| a.0.total_cmp(&b.0))?;
    let top = largest.fix_effects.first()?;
    let points: Vec<(f64, u64)> = pairs
        .iter()
        .filter_map(|(x, r)| {
            let e = r
                .fix_effects
                .iter()
                .find(|e| e.file == top.file && e.line == top.line)?;
            Some((*x, e.peak_after_fix_bytes))
        })
        .collect();
    let fit = fit_linear(
        &points
            .iter()
            .map(|&(x, y)| (x, y as f64))
            .collect::<Vec<_>>(),
    )?;
    let predicted = target.map(|t| fit.predict(t));
    Some(AfterFix {
        file: top.file.clone(),
        line: top.line,
        peaks_after_fix: points,
        peak_after_fix_bytes_per_unit: fit.slope,
        peak_after_fix_intercept: fit.intercept,
        predicted_peak_after_fix_bytes: predicted,
        fits_after_fix: capacity.zip(predicted).map(|(c, p)| p <= c as f64),
    })
}

/// Places a frame (with the operator measured there) in the source tree.
type LocateSite<'a> = dyn FnMut(Option<&Frame>, Option<&str>) -> Option<SiteSource> + 'a;

#[allow(clippy::too_many_arguments)]
fn predict(
    name: &str,
    target: f64,
    peak_fit: LinearFit,
    pairs: &[(f64, &ProfileReport)],
    evs: &[&Evidence],
    sites: &[SiteScaling],
    capacity: Option<u64>,
    locate: &mut LocateSite,
) -> Prediction {
    let peak = peak_fit.predict(target);
    let frame_of = |file: &Option<String>, line: Option<u32>| -> Option<Frame> {
        Some(Frame {
            file: file.clone()?,
            line: line?,
            function: String::new(),
            line_kind: crate::evidence::LineKind::Exact,
            callee: None,
        })
    };
    let largest_site = sites
        .iter()
        .filter_map(|s| Some((s, s.predicted_bytes?)))
        // Equal sizes: the first by place and op wins, whatever the hash order.
        .max_by(|a, b| {
            a.1.total_cmp(&b.1)
                .then_with(|| (&b.0.file, b.0.line, &b.0.op).cmp(&(&a.0.file, a.0.line, &a.0.op)))
        })
        .map(|(s, b)| PredictedSite {
            op: s.op.clone(),
            file: s.file.clone(),
            line: s.line,
            predicted_bytes: b,
            predicted_total_bytes: None,
            source: locate(
                s.frame
                    .clone()
                    .or_else(|| frame_of(&s.file, s.line))
                    .as_ref(),
                s.op.as_deref(),
            ),
        });
    let mut first_exceeding = None;
    let mut largest_live = None;
    if let Some(cap) = capacity {
        // Align allocations across profiles and fit each one's running total.
        let aligned_all: Vec<Vec<(AlignKey, &Allocation)>> =
            evs.iter().map(|e| aligned(e)).collect();
        let maps: Vec<HashMap<&AlignKey, &Allocation>> = aligned_all
            .iter()
            .map(|v| v.iter().map(|(k, a)| (k, *a)).collect())
            .collect();
        let xs: Vec<f64> = pairs.iter().map(|p| p.0).collect();
        let last = xs
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map_or(0, |(i, _)| i);
        for (key, a) in &aligned_all[last] {
            let mut totals = Vec::new();
            let mut sizes = Vec::new();
            for (m, &x) in maps.iter().zip(&xs) {
                if let Some(b) = m.get(key)
                    && let Some(t) = b.total_allocated_after
                {
                    totals.push((x, t as f64));
                    sizes.push((x, b.bytes as f64));
                }
            }
            if totals.len() < 2 {
                continue;
            }
            let (Some(tf), Some(sf)) = (fit_linear(&totals), fit_linear(&sizes)) else {
                continue;
            };
            let total = tf.predict(target);
            if total > cap as f64 {
                // The largest allocation alive at that moment, by predicted size.
                let t = a.alloc_time_ns;
                let predicted_size = |k: &AlignKey| -> Option<f64> {
                    let pts: Vec<(f64, f64)> = maps
                        .iter()
                        .zip(&xs)
                        .filter_map(|(m, &x)| Some((x, m.get(k)?.bytes as f64)))
                        .collect();
                    Some(fit_linear(&pts)?.predict(target))
                };
                largest_live = aligned_all[last]
                    .iter()
                    .filter(|(_, b)| match (t, b.alloc_time_ns) {
                        (Some(t), Some(s)) => s <= t && b.free_time_ns.is_none_or(|f| f > t),
                        _ => false,
                    })
                    .filter_map(|(k, b)| Some((predicted_size(k)?, *b)))
                    .max_by(|x, y| x.0.total_cmp(&y.0))
                    .map(|(bytes, b)| {
                        let site = user_frame(&b.stack).cloned();
                        let (file, line) = site_parts(&site);
                        PredictedSite {
                            op: b.op.clone(),
                            file,
                            line,
                            predicted_bytes: bytes,
                            predicted_total_bytes: None,
                            source: locate(site.as_ref(), b.op.as_deref()),
                        }
                    });
                let site = user_frame(&a.stack).cloned();
                let (file, line) = site_parts(&site);
                first_exceeding = Some(PredictedSite {
                    op: a.op.clone(),
                    file,
                    line,
                    predicted_bytes: sf.predict(target),
                    predicted_total_bytes: Some(total),
                    source: locate(site.as_ref(), a.op.as_deref()),
                });
                break;
            }
        }
        if first_exceeding.is_none() && peak > cap as f64 {
            first_exceeding = largest_site.clone();
        }
    }
    // A site placed in the source names the line it was placed on (not a `def` row).
    let placed = |site: Option<PredictedSite>| {
        site.map(|mut site| {
            if let Some(src) = &site.source {
                site.line = Some(src.line);
            }
            site
        })
    };
    let (first_exceeding, largest_live, largest_site) = (
        placed(first_exceeding),
        placed(largest_live),
        placed(largest_site),
    );
    Prediction {
        name: name.to_string(),
        value: target,
        peak_bytes: peak,
        capacity_bytes: capacity,
        exceeds_capacity: capacity.map(|c| peak > c as f64),
        first_exceeding,
        largest_live,
        largest_site,
    }
}

/// `file:line` of a site, for the renderers.
pub(crate) fn site_label(file: &Option<String>, line: Option<u32>) -> String {
    match (file, line) {
        (Some(f), Some(l)) => format!("{f}:{l}"),
        (Some(f), None) => f.clone(),
        _ => "?".to_string(),
    }
}

/// The old path of the evidence fuzz body, kept until `tests/` moves to `testing`.
#[cfg(any(test, feature = "fuzzing"))]
#[doc(hidden)]
pub use crate::testing::exercise_evidence_bytes;
