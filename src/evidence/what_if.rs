//! What a fix buys, from the measured timeline alone: a cast, move or copy that wrote out a
//! broadcast view (an input dim of size > 1 with stride 0) would, reordered, convert only the
//! small source tensor and leave the enlarged result a free view. So each such allocation
//! shrinks to `source elements x output item size`; the rest of the timeline is unchanged, and
//! the peak of the adjusted series is the peak after the fix.

use serde::Serialize;

use super::report::{broadcast_input, is_materialized_broadcast, main_series, user_frame};
use super::{Allocation, Evidence, MemoryPoint, MemorySeries};

/// The peak with one source line fixed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FixEffect {
    pub file: String,
    pub line: u32,
    pub op: Option<String>,
    pub peak_bytes: u64,
    pub peak_after_fix_bytes: u64,
    /// How many allocations at the line the fix shrinks.
    pub allocations: u64,
}

impl FixEffect {
    pub fn saved_bytes(&self) -> u64 {
        self.peak_bytes.saturating_sub(self.peak_after_fix_bytes)
    }

    /// The saving as a share of the peak, in percent.
    pub fn saved_percent(&self) -> f64 {
        if self.peak_bytes == 0 {
            0.0
        } else {
            self.saved_bytes() as f64 * 100.0 / self.peak_bytes as f64
        }
    }
}

/// What the reordered code allocates instead of `a`: the broadcast input's own elements (its
/// stride-0 dims count once) at the output's item size. `None` when `a` did not materialize a
/// broadcast view or its shapes do not add up.
pub fn bytes_after_fix(a: &Allocation) -> Option<u64> {
    if !is_materialized_broadcast(a) {
        return None;
    }
    let (shape, strides) = broadcast_input(a)?;
    let mut full: u128 = 1;
    let mut source: u128 = 1;
    for (&size, &stride) in shape.iter().zip(strides.iter()) {
        let size = u128::try_from(size).ok()?;
        full = full.checked_mul(size)?;
        if stride != 0 {
            source = source.checked_mul(size)?;
        }
    }
    if full == 0 {
        return None;
    }
    // bytes x source / full = source elements x output item size, exactly when the output has
    // the input's element count (a cast or copy), which is what the flag above established.
    let after = u128::from(a.bytes).checked_mul(source)? / full;
    u64::try_from(after).ok()
}

/// One allocation the fix shrinks: its lifetime and the bytes saved while it is alive.
#[derive(Debug, Clone, Copy)]
struct Shrink {
    alloc_time_ns: Option<i64>,
    free_time_ns: Option<i64>,
    saved: u64,
}

/// The allocations a fix at one line shrinks.
struct SiteShrinks {
    file: String,
    line: u32,
    op: Option<String>,
    shrinks: Vec<Shrink>,
}

fn site_shrinks(ev: &Evidence) -> Vec<SiteShrinks> {
    let mut sites: Vec<SiteShrinks> = Vec::new();
    for a in &ev.allocations {
        let Some(after) = bytes_after_fix(a) else {
            continue;
        };
        let Some(frame) = user_frame(&a.stack) else {
            continue;
        };
        let shrink = Shrink {
            alloc_time_ns: a.alloc_time_ns,
            free_time_ns: a.free_time_ns,
            saved: a.bytes.saturating_sub(after).saturating_mul(a.count.max(1)),
        };
        match sites
            .iter_mut()
            .find(|s| s.file == frame.file && s.line == frame.line)
        {
            Some(site) => site.shrinks.push(shrink),
            None => sites.push(SiteShrinks {
                file: frame.file.clone(),
                line: frame.line,
                op: a.op.clone(),
                shrinks: vec![shrink],
            }),
        }
    }
    sites
}

/// The series with the shrinks applied: each level lowered by what the shrunk allocations
/// alive at that moment no longer take.
fn apply(series: &MemorySeries, shrinks: &[Shrink]) -> MemorySeries {
    let points = series
        .points
        .iter()
        .map(|p| {
            let saved = shrinks
                .iter()
                .filter(|s| {
                    s.alloc_time_ns.is_some_and(|at| at <= p.time_ns)
                        && s.free_time_ns.is_none_or(|f| f > p.time_ns)
                })
                .fold(0u64, |sum, s| sum.saturating_add(s.saved));
            MemoryPoint {
                allocated: p.allocated.map(|a| a.saturating_sub(saved)),
                ..*p
            }
        })
        .collect();
    MemorySeries {
        component: series.component.clone(),
        device: series.device.clone(),
        points,
    }
}

/// The main memory series as it would be with the line `file:line` fixed.
pub fn series_after_fix(ev: &Evidence, file: &str, line: u32) -> Option<MemorySeries> {
    let series = main_series(ev)?;
    let site = site_shrinks(ev)
        .into_iter()
        .find(|s| s.file == file && s.line == line)?;
    Some(apply(series, &site.shrinks))
}

/// The effect of fixing each source line where a broadcast view was materialized, largest saving
/// first. Empty when the evidence has no memory series or no such allocation.
pub fn fix_effects(ev: &Evidence) -> Vec<FixEffect> {
    let Some(series) = main_series(ev) else {
        return Vec::new();
    };
    let Some(peak) = series.peak_allocated().and_then(|p| p.allocated) else {
        return Vec::new();
    };
    let mut out: Vec<FixEffect> = site_shrinks(ev)
        .into_iter()
        .map(|site| {
            let after = apply(series, &site.shrinks)
                .peak_allocated()
                .and_then(|p| p.allocated)
                .unwrap_or(peak);
            FixEffect {
                file: site.file,
                line: site.line,
                op: site.op,
                peak_bytes: peak,
                peak_after_fix_bytes: after.min(peak),
                allocations: site.shrinks.len() as u64,
            }
        })
        .filter(|e| e.saved_bytes() > 0)
        .collect();
    out.sort_by(|a, b| {
        b.saved_bytes()
            .cmp(&a.saved_bytes())
            .then_with(|| (&a.file, a.line).cmp(&(&b.file, b.line)))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::MemorySeries;
    use crate::evidence::{Device, DeviceKind, EvidenceKind, Frame, LineKind, MemoryPoint};
    use std::path::Path;

    fn cast(bytes: u64, shape: Vec<i64>, strides: Vec<i64>) -> Allocation {
        let mut a = Allocation::new(bytes, Device::new(DeviceKind::Cpu, None));
        a.op = Some("aten::to".to_string());
        a.input_shapes = vec![shape];
        a.input_strides = vec![strides];
        a
    }

    #[test]
    fn the_fixed_cast_converts_only_the_source() {
        // [2, 24, 2048, 2048] bool from a [1, 1, 2048, 2048] int64 mask: 4 MiB after the fix.
        let a = cast(201_326_592, vec![2, 24, 2048, 2048], vec![0, 0, 2048, 1]);
        assert_eq!(bytes_after_fix(&a), Some(4_194_304));
        // A contiguous input is no broadcast: nothing to gain.
        let b = cast(16, vec![2, 2], vec![2, 1]);
        assert_eq!(bytes_after_fix(&b), None);
    }

    #[test]
    fn the_peak_after_the_fix_replays_the_timeline() {
        let mut ev = Evidence::new(EvidenceKind::ChromeTrace, Path::new("t.json"));
        let mut a = cast(1000, vec![10, 100], vec![0, 1]);
        a.alloc_time_ns = Some(10);
        a.free_time_ns = Some(20);
        a.stack = vec![Frame {
            file: "m.py".to_string(),
            line: 35,
            function: "f".to_string(),
            line_kind: LineKind::Exact,
            callee: None,
        }];
        ev.allocations = vec![a];
        let point = |t: i64, v: u64| MemoryPoint {
            time_ns: t,
            allocated: Some(v),
            reserved: None,
            active: None,
        };
        // Weights 500; the cast adds 1000 at t=10; something else adds 300 at t=30.
        ev.series = vec![MemorySeries {
            component: "allocator".to_string(),
            device: Device::new(DeviceKind::Cpu, None),
            points: vec![
                point(0, 500),
                point(10, 1500),
                point(20, 500),
                point(30, 800),
                point(40, 500),
            ],
        }];
        let effects = fix_effects(&ev);
        assert_eq!(effects.len(), 1);
        let e = &effects[0];
        assert_eq!((e.file.as_str(), e.line), ("m.py", 35));
        assert_eq!(e.peak_bytes, 1500);
        // The cast becomes 100 B: 600 at t=10, so the other allocation's 800 is the new peak.
        assert_eq!(e.peak_after_fix_bytes, 800);
        assert_eq!(e.saved_bytes(), 700);
        let after = series_after_fix(&ev, "m.py", 35).expect("series");
        let levels: Vec<Option<u64>> = after.points.iter().map(|p| p.allocated).collect();
        assert_eq!(
            levels,
            vec![Some(500), Some(600), Some(500), Some(800), Some(500)]
        );
    }
}
