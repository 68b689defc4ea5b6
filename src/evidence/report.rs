//! The memory analysis of docs/design.md section 5 as plain data: peak, static vs dynamic, the
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
    /// When the step starts: the first operator, or (sources without operators, such as CUDA
    /// snapshots) the first allocation that is freed again within the recording.
    pub step_start_ns: Option<i64>,
    /// The static allocations (made before the step starts and held to the end), aggregated by
    /// site like the hot list and largest first. They are never hot allocations.
    pub allocations: Vec<HotAllocation>,
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
    /// Bytes of these allocations still live at the moment of the peak: the ranking measure
    /// (what the site holds when memory runs out), `bytes x count` breaking ties.
    pub live_at_peak_bytes: u64,
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
    /// Dynamic allocations ranked by bytes live at the peak (static ones are in `static`).
    pub hot: Vec<HotAllocation>,
    /// Every hot allocation with `materialized_broadcast` (not only the top ones).
    pub materialized_broadcasts: Vec<HotAllocation>,
    /// Sum of the latest runtime component samples (Ascend CANN module memory).
    pub component_memory_bytes: Option<u64>,
    pub ooms: Vec<OomEvent>,
    /// The peak after fixing each line that materialized a broadcast view, largest saving first.
    pub fix_effects: Vec<super::what_if::FixEffect>,
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
    broadcast_input(a).is_some()
}

/// The first input of `a` that is a broadcast view (a dim of size > 1 with stride 0): its shape
/// and strides.
pub fn broadcast_input(a: &Allocation) -> Option<(&[i64], &[i64])> {
    a.input_shapes
        .iter()
        .zip(&a.input_strides)
        .find(|(shape, strides)| {
            shape.len() == strides.len()
                && shape
                    .iter()
                    .zip(strides.iter())
                    .any(|(&size, &stride)| size > 1 && stride == 0)
        })
        .map(|(shape, strides)| (shape.as_slice(), strides.as_slice()))
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
    let step_start = step_start_ns(ev);
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
        let static_bytes = match (ev.first_op_time_ns, step_start) {
            (Some(t), _) => level_at(&s.points, t, |p| p.allocated).unwrap_or(start),
            // The level just before the first transient allocation.
            (None, Some(t)) => s
                .points
                .iter()
                .rev()
                .filter(|p| p.time_ns < t)
                .find_map(|p| p.allocated)
                .unwrap_or(start),
            (None, None) => start,
        };
        static_memory = Some(StaticMemory {
            static_bytes,
            dynamic_peak_bytes: peak_bytes.saturating_sub(static_bytes),
            first_op_time_ns: ev.first_op_time_ns,
            step_start_ns: step_start,
            allocations: Vec::new(),
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

    let peak_time = peak.as_ref().map(|p| p.allocated_time_ns);
    let (statics, dynamics): (Vec<&Allocation>, Vec<&Allocation>) = ev
        .allocations
        .iter()
        .partition(|a| is_static(a, step_start));
    if let Some(st) = static_memory.as_mut() {
        st.allocations = rank(&statics, peak_time);
        st.allocations.truncate(top);
    }
    let all = rank(&dynamics, peak_time);
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
        fix_effects: super::what_if::fix_effects(ev),
    }
}

type SiteKey = (u64, Option<String>, Option<(String, u32, String, LineKind)>);

/// When the step starts: the first operator where the source records operators; else the first
/// allocation that is freed again within the recording (what is allocated before it and never
/// freed is weights, optimizer state or caches).
pub fn step_start_ns(ev: &Evidence) -> Option<i64> {
    ev.first_op_time_ns.or_else(|| {
        ev.allocations
            .iter()
            .filter(|a| a.free_time_ns.is_some())
            .filter_map(|a| a.alloc_time_ns)
            .min()
    })
}

/// Static memory: allocated before the step starts and held to the end of the recording.
pub fn is_static(a: &Allocation, step_start: Option<i64>) -> bool {
    match (step_start, a.alloc_time_ns) {
        (Some(start), Some(t)) => t < start && a.free_time_ns.is_none(),
        _ => false,
    }
}

/// Bytes of `a` live at `t`: allocated at or before it and not yet freed.
pub fn live_at(a: &Allocation, t: i64) -> u64 {
    let allocated = a.alloc_time_ns.is_some_and(|at| at <= t);
    let not_freed = a.free_time_ns.is_none_or(|ft| ft > t);
    if allocated && not_freed {
        a.bytes.saturating_mul(a.count)
    } else {
        0
    }
}

/// Aggregate identical allocations (bytes, op, user line) and sort by `bytes x count`, largest first.
pub fn hot_allocations(allocs: &[Allocation]) -> Vec<HotAllocation> {
    let refs: Vec<&Allocation> = allocs.iter().collect();
    aggregate(&refs, None)
}

/// Aggregate identical allocations and rank them by bytes live at `peak_time` (when known),
/// then by `bytes x count`, largest first.
fn rank(allocs: &[&Allocation], peak_time: Option<i64>) -> Vec<HotAllocation> {
    let mut out = aggregate(allocs, peak_time);
    out.sort_by(|x, y| {
        y.live_at_peak_bytes
            .cmp(&x.live_at_peak_bytes)
            .then(y.total_bytes.cmp(&x.total_bytes))
            .then(y.bytes.cmp(&x.bytes))
    });
    out
}

fn aggregate(allocs: &[&Allocation], peak_time: Option<i64>) -> Vec<HotAllocation> {
    let mut index: HashMap<SiteKey, usize> = HashMap::new();
    let mut out: Vec<HotAllocation> = Vec::new();
    for &a in allocs {
        let live = peak_time.map_or(0, |t| live_at(a, t));
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
                h.live_at_peak_bytes = h.live_at_peak_bytes.saturating_add(live);
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
                    live_at_peak_bytes: live,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::{Device, DeviceKind, EvidenceKind, Frame, LineKind, MemoryPoint};
    use std::path::Path;

    fn alloc(bytes: u64, at: i64, freed: Option<i64>, line: u32) -> Allocation {
        let mut a = Allocation::new(bytes, Device::new(DeviceKind::Cuda, Some(0)));
        a.alloc_time_ns = Some(at);
        a.free_time_ns = freed;
        a.op = Some(format!("op{line}"));
        a.stack = vec![Frame {
            file: "model.py".to_string(),
            line,
            function: "f".to_string(),
            line_kind: LineKind::Exact,
            callee: None,
        }];
        a
    }

    /// Weights (never freed, before the step), a big early transient that is gone at the peak,
    /// and two smaller ones live at the peak.
    fn evidence(first_op: Option<i64>) -> Evidence {
        let mut ev = Evidence::new(EvidenceKind::CudaSnapshot, Path::new("x.pickle"));
        ev.first_op_time_ns = first_op;
        ev.allocations = vec![
            alloc(1000, 1, None, 1),
            alloc(500, 10, Some(20), 2),
            alloc(300, 30, Some(50), 3),
            alloc(200, 31, Some(50), 4),
        ];
        let level = |t: i64, v: u64| MemoryPoint {
            time_ns: t,
            allocated: Some(v),
            reserved: None,
            active: None,
        };
        ev.series = vec![MemorySeries {
            component: "allocator".to_string(),
            device: Device::new(DeviceKind::Cuda, Some(0)),
            points: vec![
                level(1, 1000),
                level(10, 1500),
                level(20, 1000),
                level(30, 1300),
                level(31, 1500),
                level(50, 1000),
            ],
        }];
        ev
    }

    #[test]
    fn step_starts_at_the_first_operator_or_the_first_freed_allocation() {
        assert_eq!(step_start_ns(&evidence(Some(5))), Some(5));
        assert_eq!(step_start_ns(&evidence(None)), Some(10));
    }

    #[test]
    fn weights_are_static_and_never_hot() {
        let r = analyze(&evidence(None), 10);
        let st = r.static_memory.expect("static section");
        assert_eq!(st.static_bytes, 1000);
        assert_eq!(st.dynamic_peak_bytes, 500);
        assert_eq!(st.allocations.len(), 1);
        assert_eq!(st.allocations[0].site.as_ref().map(|f| f.line), Some(1));
        assert!(
            r.hot
                .iter()
                .all(|h| h.site.as_ref().map(|f| f.line) != Some(1))
        );
    }

    #[test]
    fn hot_sites_are_ranked_by_what_they_hold_at_the_peak() {
        // The peak (1500) is first reached at t=10, when only line 2 is live besides weights.
        let r = analyze(&evidence(None), 10);
        let lines: Vec<u32> = r
            .hot
            .iter()
            .filter_map(|h| h.site.as_ref().map(|f| f.line))
            .collect();
        assert_eq!(lines, vec![2, 3, 4]);
        assert_eq!(r.hot[0].live_at_peak_bytes, 500);
        assert_eq!(r.hot[1].live_at_peak_bytes, 0);
        // Without times nothing is live anywhere and the order is bytes x count.
        let mut ev = evidence(None);
        for a in &mut ev.allocations {
            a.alloc_time_ns = None;
            a.free_time_ns = None;
        }
        let r = analyze(&ev, 10);
        assert!(r.static_memory.is_none_or(|s| s.allocations.is_empty()));
        assert_eq!(r.hot[0].bytes, 1000);
    }

    #[test]
    fn live_at_counts_only_blocks_allocated_and_not_yet_freed() {
        let a = alloc(8, 10, Some(20), 1);
        assert_eq!(live_at(&a, 9), 0);
        assert_eq!(live_at(&a, 10), 8);
        assert_eq!(live_at(&a, 19), 8);
        assert_eq!(live_at(&a, 20), 0);
        assert_eq!(live_at(&alloc(8, 10, None, 1), 1_000), 8);
    }
}
