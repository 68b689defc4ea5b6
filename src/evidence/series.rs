//! The memory series down-sampler: a series of up to [`SERIES_POINTS`] points is kept whole;
//! a longer one keeps per time bucket its extremes, plus every point a report reads (first,
//! last, peaks, the level at the first operator), so the report's figures are those of the
//! whole series.

use super::{Device, MemoryPoint, MemorySeries};

/// Points of a memory series kept as they are up to this count; beyond it, bucket extremes.
pub const SERIES_POINTS: usize = 100_000;
/// Buckets of a down-sampled series (at most 8 points kept per bucket).
const SERIES_BUCKETS: usize = 6_000;

/// A memory series being built, down-sampled past [`SERIES_POINTS`] points.
pub(super) struct SeriesBuild {
    device: Device,
    /// Points per bucket (1: every point kept).
    bucket: usize,
    seq: usize,
    kept: Vec<(usize, MemoryPoint)>,
    cur: Vec<(usize, MemoryPoint)>,
    first_op_ns: Option<i64>,
    /// Last point at or before the first operator with an allocated value.
    level_first_op: Option<(usize, MemoryPoint)>,
    peak: Option<(u64, i64)>,
    last_reserved: Option<(usize, MemoryPoint)>,
    /// Last point with a reserved value at or before the peak's time.
    peak_reserved: Option<(usize, MemoryPoint)>,
}

impl SeriesBuild {
    pub(super) fn new(device: Device, points: usize, first_op_ns: Option<i64>) -> Self {
        Self::with_limits(device, points, first_op_ns, SERIES_POINTS, SERIES_BUCKETS)
    }

    /// A series of `points` kept whole up to `keep_whole`, else cut into `buckets` buckets.
    fn with_limits(
        device: Device,
        points: usize,
        first_op_ns: Option<i64>,
        keep_whole: usize,
        buckets: usize,
    ) -> Self {
        let bucket = if points <= keep_whole {
            1
        } else {
            points.div_ceil(buckets.max(1))
        };
        SeriesBuild {
            device,
            bucket,
            seq: 0,
            kept: Vec::new(),
            cur: Vec::new(),
            first_op_ns,
            level_first_op: None,
            peak: None,
            last_reserved: None,
            peak_reserved: None,
        }
    }

    pub(super) fn push(&mut self, p: MemoryPoint) {
        let s = self.seq;
        self.seq += 1;
        if self.bucket == 1 {
            self.kept.push((s, p));
            return;
        }
        if let Some(t) = self.first_op_ns
            && p.time_ns <= t
            && p.allocated.is_some()
        {
            self.level_first_op = Some((s, p));
        }
        if let Some(a) = p.allocated
            && self.peak.is_none_or(|(b, _)| a > b)
        {
            self.peak = Some((a, p.time_ns));
            self.peak_reserved = self.last_reserved;
        }
        if p.reserved.is_some() {
            self.last_reserved = Some((s, p));
            if self.peak.is_some_and(|(_, t)| t == p.time_ns) {
                self.peak_reserved = Some((s, p));
            }
        }
        self.cur.push((s, p));
        if self.cur.len() >= self.bucket {
            self.flush();
        }
    }

    /// Keep a bucket's first and last points, its extremes, and its first and last points with
    /// each value.
    fn flush(&mut self) {
        let cur = std::mem::take(&mut self.cur);
        if cur.is_empty() {
            return;
        }
        let alloc = |x: &&(usize, MemoryPoint)| x.1.allocated;
        let with_a = || cur.iter().filter(|x| x.1.allocated.is_some());
        let with_r = || cur.iter().filter(|x| x.1.reserved.is_some());
        let mut pick: Vec<(usize, MemoryPoint)> = Vec::with_capacity(8);
        pick.extend(cur.first());
        pick.extend(cur.last());
        pick.extend(with_a().next());
        pick.extend(with_a().next_back());
        pick.extend(with_a().min_by_key(alloc));
        // First of the largest.
        pick.extend(with_a().rev().max_by_key(alloc));
        pick.extend(with_r().rev().max_by_key(|x| x.1.reserved));
        pick.extend(with_r().next_back());
        pick.sort_by_key(|x| x.0);
        pick.dedup_by_key(|x| x.0);
        self.kept.extend(pick);
        self.cur = cur;
        self.cur.clear();
    }

    pub(super) fn finish(mut self) -> MemorySeries {
        self.flush();
        let mut kept = self.kept;
        if self.bucket > 1 {
            kept.extend(self.level_first_op);
            kept.extend(self.peak_reserved);
            kept.sort_by_key(|x| x.0);
            kept.dedup_by_key(|x| x.0);
        }
        MemorySeries {
            component: "allocator".into(),
            device: self.device,
            points: kept.into_iter().map(|x| x.1).collect(),
        }
    }
}

/// `series` down-sampled to at most about `max_points` points for a plot, with the same
/// bucket rule as the readers use (extremes and the report's points survive, so spikes and the
/// peak stay visible).
pub fn downsample(
    series: &MemorySeries,
    max_points: usize,
    first_op_ns: Option<i64>,
) -> MemorySeries {
    // At most 8 points are kept per bucket.
    let mut build = SeriesBuild::with_limits(
        series.device.clone(),
        series.points.len(),
        first_op_ns,
        max_points,
        max_points / 8,
    );
    for p in &series.points {
        build.push(*p);
    }
    let mut out = build.finish();
    out.component = series.component.clone();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(i: usize, allocated: u64) -> MemoryPoint {
        MemoryPoint {
            time_ns: i as i64,
            allocated: Some(allocated),
            reserved: None,
            active: None,
        }
    }

    fn run(n: usize, first_op_ns: Option<i64>, value: impl Fn(usize) -> u64) -> MemorySeries {
        let mut s = SeriesBuild::new(Device::from_c10(0, -1), n, first_op_ns);
        for i in 0..n {
            s.push(point(i, value(i)));
        }
        s.finish()
    }

    #[test]
    fn short_series_kept_whole() {
        let out = run(SERIES_POINTS, Some(3), |i| (i % 7) as u64);
        assert_eq!(out.component, "allocator");
        assert_eq!(out.points.len(), SERIES_POINTS);
        assert!(
            out.points
                .iter()
                .enumerate()
                .all(|(i, p)| *p == point(i, (i % 7) as u64))
        );
        assert!(run(0, None, |_| 0).points.is_empty());
    }

    #[test]
    fn downsampled_series_keeps_report_points() {
        let n = SERIES_POINTS * 3;
        let mut s = SeriesBuild::new(Device::from_c10(0, -1), n, Some(500));
        let mut all = Vec::new();
        for i in 0..n {
            let v = ((i * 7919) % 1000) as u64 + if i == 123_457 { 5000 } else { 0 };
            let p = MemoryPoint {
                time_ns: i as i64,
                allocated: Some(v),
                reserved: None,
                active: None,
            };
            all.push(p);
            s.push(p);
        }
        let out = s.finish();
        assert!(out.points.len() < n / 10);
        let full = MemorySeries {
            component: "allocator".into(),
            device: out.device.clone(),
            points: all,
        };
        assert_eq!(out.peak_allocated(), full.peak_allocated());
        assert_eq!(out.points.first(), full.points.first());
        assert_eq!(out.points.last(), full.points.last());
        assert!(out.points.contains(&full.points[500]));
    }

    #[test]
    fn each_bucket_keeps_its_ends_and_extremes() {
        let n = SERIES_POINTS + 1;
        let bucket = n.div_ceil(SERIES_BUCKETS);
        let value = |i: usize| ((i * 31) % 97) as u64;
        let out = run(n, None, value);
        let all: Vec<MemoryPoint> = (0..n).map(|i| point(i, value(i))).collect();
        for chunk in all.chunks(bucket) {
            let lo = chunk.iter().min_by_key(|p| p.allocated).unwrap();
            let hi = chunk.iter().rev().max_by_key(|p| p.allocated).unwrap();
            for p in [&chunk[0], chunk.last().unwrap(), lo, hi] {
                assert!(out.points.contains(p), "{p:?}");
            }
        }
        // In time order, each point once.
        assert!(out.points.windows(2).all(|w| w[0].time_ns < w[1].time_ns));
        assert!(out.points.len() <= SERIES_BUCKETS * 8);
    }

    #[test]
    fn level_at_the_first_operator_is_kept() {
        // Buckets of 17 points: 50_008 and 50_009 are inside one.
        let t = 50_008;
        let out = run(SERIES_POINTS + 1, Some(t), |_| 100);
        // A flat series keeps only bucket ends, and the level at the first operator.
        assert!(out.points.contains(&point(t as usize, 100)));
        assert!(!out.points.contains(&point(t as usize + 1, 100)));
    }

    #[test]
    fn a_plot_keeps_its_budget_and_the_peak() {
        let points: Vec<MemoryPoint> = (0..10_000i64)
            .map(|t| MemoryPoint {
                time_ns: t,
                allocated: Some(if t == 7_777 {
                    1_000_000
                } else {
                    (t % 100) as u64
                }),
                reserved: None,
                active: None,
            })
            .collect();
        let series = MemorySeries {
            component: "PTA".into(),
            device: Device::new(crate::evidence::DeviceKind::Npu, Some(0)),
            points,
        };
        let kept = downsample(&series, 1500, None);
        assert!(kept.points.len() <= 1500, "{}", kept.points.len());
        assert_eq!(kept.component, "PTA");
        assert!(kept.points.iter().any(|p| p.allocated == Some(1_000_000)));
        let short = downsample(&kept, 100_000, None);
        assert_eq!(short.points, kept.points, "a short series is kept whole");
    }
}
