//! The memory analysis of DESIGN.md section 5 as plain data: peak, static vs dynamic, the
//! reserved-allocated gap, hot allocations (with the materialized-broadcast flag), and linear fits
//! across profiles labelled with a dimension value.

use super::{
    Allocation, Evidence, EvidenceKind, Frame, LineKind, MemoryPoint, MemorySeries, OomEvent,
    is_library_file,
};
use serde::Serialize;
use std::collections::HashMap;
use std::path::PathBuf;

/// Whether the peak is a short spike above the baseline or memory that keeps growing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PeakShape {
    /// Memory returns close to where it started: a transient peak.
    Spike,
    /// Most of the peak is still held at the end: growth across the profile.
    Growth,
    /// Nothing above the baseline.
    Flat,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Peak {
    /// The series used (`allocator`, `PTA`).
    pub component: String,
    pub allocated_bytes: u64,
    pub allocated_time_ns: i64,
    pub reserved_bytes: Option<u64>,
    pub reserved_time_ns: Option<i64>,
    /// Allocated at the start and at the end of the series.
    pub start_bytes: u64,
    pub end_bytes: u64,
    pub shape: PeakShape,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StaticMemory {
    /// Held before the first operator (weights, optimizer state, KV cache).
    pub static_bytes: u64,
    /// Peak allocated minus the static part.
    pub dynamic_peak_bytes: u64,
    pub first_op_time_ns: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Gap {
    pub time_ns: i64,
    pub allocated_bytes: u64,
    pub reserved_bytes: u64,
    /// Reserved minus allocated at the peak (cached blocks, fragmentation).
    pub reserved_minus_allocated_bytes: u64,
    /// Ascend: whole-process device memory (APP reserved) at the peak.
    pub app_bytes: Option<u64>,
    /// Ascend: APP minus PTA reserved at the peak (CANN runtime, HCCL, GE, workspaces).
    pub app_minus_pta_bytes: Option<u64>,
}

/// One hot allocation site: identical allocations (bytes, op, line) aggregated.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HotAllocation {
    pub bytes: u64,
    pub count: u64,
    /// `bytes x count`, the sort key.
    pub total_bytes: u64,
    pub op: Option<String>,
    pub op_chain: Vec<String>,
    pub input_shapes: Vec<Vec<i64>>,
    pub input_strides: Vec<Vec<i64>>,
    pub input_dtypes: Vec<String>,
    pub concrete_inputs: Vec<String>,
    /// Longest lifetime among the aggregated allocations.
    pub max_lifetime_ns: Option<i64>,
    /// The user frame (first frame outside torch / site-packages), else the innermost frame.
    pub site: Option<Frame>,
    /// The outermost op is a cast/copy/contiguous whose input has a stride-0 dim of size > 1.
    pub materialized_broadcast: bool,
}

/// The whole report for one piece of evidence.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProfileReport {
    pub path: PathBuf,
    pub kind: EvidenceKind,
    pub peak: Option<Peak>,
    #[serde(rename = "static")]
    pub static_memory: Option<StaticMemory>,
    pub gap: Option<Gap>,
    pub hot: Vec<HotAllocation>,
    /// Every hot allocation with `materialized_broadcast` (not only the top ones).
    pub materialized_broadcasts: Vec<HotAllocation>,
    /// Sum of the latest runtime component samples (Ascend CANN module memory).
    pub component_memory_bytes: Option<u64>,
    pub ooms: Vec<OomEvent>,
}

/// Ops that write a full-size copy of their input.
const COPY_OPS: &[&str] = &["to", "_to_copy", "copy_", "contiguous", "clone", "type_as"];

/// True when `op` is a cast/copy/contiguous and one of its inputs is a broadcast view (a dim of
/// size > 1 with stride 0).
pub fn is_materialized_broadcast(a: &Allocation) -> bool {
    let Some(op) = a.op.as_deref() else {
        return false;
    };
    let base = op.rsplit("::").next().unwrap_or(op);
    if !COPY_OPS.contains(&base) {
        return false;
    }
    a.input_shapes
        .iter()
        .zip(&a.input_strides)
        .any(|(shape, strides)| {
            shape.len() == strides.len()
                && shape
                    .iter()
                    .zip(strides)
                    .any(|(&size, &stride)| size > 1 && stride == 0)
        })
}

/// The user frame of a stack: first frame outside library code, else the innermost one.
pub fn user_frame(stack: &[Frame]) -> Option<&Frame> {
    stack
        .iter()
        .find(|f| !is_library_file(&f.file))
        .or(stack.first())
}

/// The series the report is about: PTA on Ascend, else the allocator series with the highest peak.
pub fn main_series(ev: &Evidence) -> Option<&MemorySeries> {
    if let Some(s) = ev.series.iter().find(|s| s.component == "PTA") {
        return Some(s);
    }
    ev.series
        .iter()
        .filter(|s| s.component == "allocator")
        .max_by_key(|s| s.peak_allocated().and_then(|p| p.allocated).unwrap_or(0))
}

fn level_at(
    points: &[MemoryPoint],
    t: i64,
    f: impl Fn(&MemoryPoint) -> Option<u64>,
) -> Option<u64> {
    points.iter().rev().filter(|p| p.time_ns <= t).find_map(&f)
}

/// Build the report; `top` bounds the hot allocation list.
pub fn analyze(ev: &Evidence, top: usize) -> ProfileReport {
    let series = main_series(ev);
    let mut peak = None;
    let mut static_memory = None;
    let mut gap = None;
    if let Some(s) = series
        && let Some(pa) = s.peak_allocated()
        && let Some(peak_bytes) = pa.allocated
    {
        let pr = s.peak_reserved();
        let start = s.points.iter().find_map(|p| p.allocated).unwrap_or(0);
        let end = s.points.iter().rev().find_map(|p| p.allocated).unwrap_or(0);
        let rise = peak_bytes.saturating_sub(start);
        let held = end.saturating_sub(start);
        let shape = if rise == 0 {
            PeakShape::Flat
        } else if held.saturating_mul(2) >= rise {
            PeakShape::Growth
        } else {
            PeakShape::Spike
        };
        peak = Some(Peak {
            component: s.component.clone(),
            allocated_bytes: peak_bytes,
            allocated_time_ns: pa.time_ns,
            reserved_bytes: pr.and_then(|p| p.reserved),
            reserved_time_ns: pr.map(|p| p.time_ns),
            start_bytes: start,
            end_bytes: end,
            shape,
        });
        let static_bytes = match ev.first_op_time_ns {
            Some(t) => level_at(&s.points, t, |p| p.allocated).unwrap_or(start),
            None => start,
        };
        static_memory = Some(StaticMemory {
            static_bytes,
            dynamic_peak_bytes: peak_bytes.saturating_sub(static_bytes),
            first_op_time_ns: ev.first_op_time_ns,
        });
        if let Some(reserved) = pa
            .reserved
            .or_else(|| level_at(&s.points, pa.time_ns, |p| p.reserved))
        {
            let app = ev
                .series
                .iter()
                .find(|x| x.component == "APP" && x.device == s.device)
                .and_then(|x| level_at(&x.points, pa.time_ns, |p| p.reserved));
            gap = Some(Gap {
                time_ns: pa.time_ns,
                allocated_bytes: peak_bytes,
                reserved_bytes: reserved,
                reserved_minus_allocated_bytes: reserved.saturating_sub(peak_bytes),
                app_bytes: app,
                app_minus_pta_bytes: app.map(|a| a.saturating_sub(reserved)),
            });
        }
    }

    let all = hot_allocations(&ev.allocations);
    let materialized_broadcasts = all
        .iter()
        .filter(|h| h.materialized_broadcast)
        .cloned()
        .collect();
    let hot = all.into_iter().take(top).collect();
    let component_memory_bytes = (!ev.component_memory.is_empty()).then(|| {
        ev.component_memory
            .iter()
            .fold(0u64, |sum, c| sum.saturating_add(c.bytes))
    });
    ProfileReport {
        path: ev.path.clone(),
        kind: ev.kind,
        peak,
        static_memory,
        gap,
        hot,
        materialized_broadcasts,
        component_memory_bytes,
        ooms: ev.ooms.clone(),
    }
}

type SiteKey = (u64, Option<String>, Option<(String, u32, String, LineKind)>);

/// Aggregate identical allocations (bytes, op, user line) and sort by `bytes x count`, largest first.
pub fn hot_allocations(allocs: &[Allocation]) -> Vec<HotAllocation> {
    let mut index: HashMap<SiteKey, usize> = HashMap::new();
    let mut out: Vec<HotAllocation> = Vec::new();
    for a in allocs {
        let site = user_frame(&a.stack).cloned();
        let key: SiteKey = (
            a.bytes,
            a.op.clone(),
            site.as_ref()
                .map(|f| (f.file.clone(), f.line, f.function.clone(), f.line_kind)),
        );
        let flag = is_materialized_broadcast(a);
        match index.get(&key) {
            Some(&i) => {
                let h = &mut out[i];
                h.count += a.count;
                h.total_bytes = h.bytes.saturating_mul(h.count);
                h.max_lifetime_ns = match (h.max_lifetime_ns, a.lifetime_ns()) {
                    (Some(x), Some(y)) => Some(x.max(y)),
                    (x, y) => x.or(y),
                };
                h.materialized_broadcast |= flag;
            }
            None => {
                index.insert(key, out.len());
                out.push(HotAllocation {
                    bytes: a.bytes,
                    count: a.count,
                    total_bytes: a.bytes.saturating_mul(a.count),
                    op: a.op.clone(),
                    op_chain: a.op_chain.clone(),
                    input_shapes: a.input_shapes.clone(),
                    input_strides: a.input_strides.clone(),
                    input_dtypes: a.input_dtypes.clone(),
                    concrete_inputs: a.concrete_inputs.clone(),
                    max_lifetime_ns: a.lifetime_ns(),
                    site,
                    materialized_broadcast: flag,
                });
            }
        }
    }
    out.sort_by(|x, y| {
        y.total_bytes
            .cmp(&x.total_bytes)
            .then(y.bytes.cmp(&x.bytes))
    });
    out
}

/// `y = slope * x + intercept` by least squares.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LinearFit {
    pub slope: f64,
    pub intercept: f64,
}

impl LinearFit {
    pub fn predict(&self, x: f64) -> f64 {
        self.slope * x + self.intercept
    }
}

/// Least-squares line through `(x, y)` points; `None` with fewer than two distinct x values.
pub fn fit_linear(points: &[(f64, f64)]) -> Option<LinearFit> {
    let n = points.len() as f64;
    if points.len() < 2 {
        return None;
    }
    let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    if sxx == 0.0 {
        return None;
    }
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let slope = sxy / sxx;
    Some(LinearFit {
        slope,
        intercept: my - slope * mx,
    })
}

/// Fit of the peak allocated bytes across reports labelled with a dimension value.
pub fn fit_peak(labelled: &[(f64, &ProfileReport)]) -> Option<LinearFit> {
    let pts: Vec<(f64, f64)> = labelled
        .iter()
        .filter_map(|(x, r)| Some((*x, r.peak.as_ref()?.allocated_bytes as f64)))
        .collect();
    fit_linear(&pts)
}

/// A site's bytes fitted across labelled reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SiteFit {
    pub op: Option<String>,
    pub site: Option<Frame>,
    /// `(dimension value, bytes)` per report that has the site.
    pub points: Vec<(f64, u64)>,
    pub fit: LinearFit,
}

/// Fit each hot site's allocation bytes (the largest allocation at that op and line) linearly.
/// Sites present in fewer than two reports are left out.
pub fn fit_sites(labelled: &[(f64, &ProfileReport)]) -> Vec<SiteFit> {
    type Key = (Option<String>, Option<(String, u32)>);
    let mut order: Vec<Key> = Vec::new();
    type Points = (Option<Frame>, Vec<(f64, u64)>);
    let mut data: HashMap<Key, Points> = HashMap::new();
    for (x, r) in labelled {
        let mut best: HashMap<Key, (u64, Option<Frame>)> = HashMap::new();
        for h in r.hot.iter().chain(r.materialized_broadcasts.iter()) {
            let key = (
                h.op.clone(),
                h.site.as_ref().map(|f| (f.file.clone(), f.line)),
            );
            let e = best.entry(key).or_insert((0, h.site.clone()));
            e.0 = e.0.max(h.bytes);
        }
        for (key, (bytes, site)) in best {
            let e = data.entry(key.clone()).or_insert_with(|| {
                order.push(key);
                (site, Vec::new())
            });
            e.1.push((*x, bytes));
        }
    }
    let mut out = Vec::new();
    for key in order {
        let Some((site, pts)) = data.remove(&key) else {
            continue;
        };
        let fpts: Vec<(f64, f64)> = pts.iter().map(|&(x, b)| (x, b as f64)).collect();
        if let Some(fit) = fit_linear(&fpts) {
            out.push(SiteFit {
                op: key.0,
                site,
                points: pts,
                fit,
            });
        }
    }
    // Ties (common: many same-sized tensors) are broken by place and op, so the output does not
    // depend on hash order.
    let place = |s: &SiteFit| {
        (
            s.site.as_ref().map(|f| (f.file.clone(), f.line)),
            s.op.clone(),
        )
    };
    out.sort_by(|a, b| {
        b.fit
            .slope
            .total_cmp(&a.fit.slope)
            .then_with(|| place(a).cmp(&place(b)))
    });
    out
}
