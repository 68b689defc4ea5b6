//! CUDA memory snapshot reader (`torch.cuda.memory._dump_snapshot` pickles).
//!
//! The pickle is decoded by [`super::pickle`] (data only, shared memo). Layouts read:
//! - current: `{"segments": [...], "device_traces": [[TraceEntry...] per device], ...}`;
//! - older: blocks with `history: [{addr, real_size, frames}]` instead of `requested_size`/`frames`;
//! - legacy: a bare list of segments (`torch.cuda.memory_snapshot()`).
//!
//! Allocations come from `alloc` trace entries (freed at `free_completed`, or `free_requested`
//! when the completion is missing), plus blocks still allocated in `segments` that the ring
//! buffer no longer holds. The allocated / reserved series is rebuilt backwards from the final
//! segment state, so a trace that starts mid-run still gives absolute levels.

use super::pickle::{self, Value};
use super::{
    Allocation, AllocationSet, Device, DeviceKind, Evidence, EvidenceError, EvidenceKind, Frame,
    LineKind, MemoryPoint, MemorySeries, OomEvent, is_library_file,
};
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::rc::Rc;

/// Totals of the `segments` list (the state when the snapshot was taken).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SegmentTotals {
    pub segments: u64,
    pub reserved: u64,
    pub allocated: u64,
    pub active: u64,
}

/// Read a snapshot file.
pub fn read_path(path: &Path) -> Result<Evidence, EvidenceError> {
    let data =
        std::fs::read(path).map_err(|e| EvidenceError::plain(path, format!("cannot read: {e}")))?;
    read_bytes(&data, path)
}

/// Read a snapshot from bytes; `path` is only used in errors and the result.
pub fn read_bytes(data: &[u8], path: &Path) -> Result<Evidence, EvidenceError> {
    let root =
        pickle::decode(data).map_err(|e| EvidenceError::at_byte(path, e.offset, e.message))?;
    from_value(&root, path, visit_budget(data.len()))
}

/// How many items (segments, blocks, trace entries, frames) a pickle of `len` bytes may make the
/// reader visit. Every item of a real snapshot is a distinct dict of tens of bytes; only memo
/// references nested in memo references (a "billion laughs" pickle) visit more than the input
/// has bytes, so a small multiple of the size bounds time and memory without touching real data.
pub fn visit_budget(len: usize) -> u64 {
    (len as u64 / 2).saturating_add(1_000_000)
}

/// Size, requested size, device and the shared frame list of an allocation.
type MergeKey = (u64, Option<u64>, i64, *const (Vec<Frame>, Option<String>));

/// Counts down the items the conversion visits; see [`visit_budget`].
struct Budget {
    left: u64,
    total: u64,
}

impl Budget {
    fn new(total: u64) -> Self {
        Budget { left: total, total }
    }

    /// Charge for visiting `items`: one each, plus the keys of a dict (its lookups are linear).
    fn take_items(&mut self, items: &[Value], path: &Path) -> Result<(), EvidenceError> {
        let cost = items
            .iter()
            .map(|v| match v {
                Value::Dict(c) => 1 + c.pairs().len(),
                _ => 1,
            })
            .fold(0usize, usize::saturating_add);
        self.take(cost, path)
    }

    fn take(&mut self, n: usize, path: &Path) -> Result<(), EvidenceError> {
        match self.left.checked_sub(n as u64) {
            Some(left) => {
                self.left = left;
                Ok(())
            }
            None => Err(EvidenceError::at_byte(
                path,
                0,
                format!(
                    "the snapshot refers to the same data over and over (more than {} items to \
                     visit for its size; a decompression bomb?); refusing",
                    self.total
                ),
            )),
        }
    }
}

/// The totals of the final segment state of a decoded snapshot.
pub fn segment_totals(root: &Value) -> SegmentTotals {
    let segs = segments_of(root);
    let mut t = SegmentTotals::default();
    for s in segs.iter() {
        t.segments += 1;
        t.reserved += u(s, "total_size");
        t.allocated += u(s, "allocated_size");
        t.active += u(s, "active_size");
    }
    t
}

fn segments_of(root: &Value) -> Vec<Value> {
    if root.is_dict() {
        root.get("segments")
            .and_then(|s| s.as_seq().map(|v| v.clone()))
            .unwrap_or_default()
    } else {
        root.as_seq().map(|v| v.clone()).unwrap_or_default()
    }
}

fn u(v: &Value, key: &str) -> u64 {
    v.get(key).and_then(|x| x.as_u64()).unwrap_or(0)
}

fn s(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(|x| x.as_str().map(str::to_string))
}

/// Python frames (innermost first) and the native op name of one frame list.
type Converted = Rc<(Vec<Frame>, Option<String>)>;

/// Converts frame lists, caching by the shared list (real snapshots share them).
#[derive(Default)]
struct FrameCache {
    by_ptr: HashMap<*const pickle::Container, Converted>,
}

impl FrameCache {
    /// Python frames (innermost first, exact lines) and the native op name, if any. Charges the
    /// budget for the frames read and for the copy of the stack each caller makes.
    fn get(
        &mut self,
        frames: Option<Value>,
        budget: &mut Budget,
        path: &Path,
    ) -> Result<Converted, EvidenceError> {
        let Some(frames) = frames else {
            return Ok(Rc::new((Vec::new(), None)));
        };
        let key = match &frames {
            Value::List(c) | Value::Tuple(c) => Some(Rc::as_ptr(c)),
            _ => None,
        };
        if let Some(k) = key
            && let Some(hit) = self.by_ptr.get(&k)
        {
            budget.take(hit.0.len(), path)?;
            return Ok(hit.clone());
        }
        let mut py = Vec::new();
        let mut native = None;
        if let Some(items) = frames.as_seq() {
            budget.take_items(&items, path)?;
            for f in items.iter() {
                let file = s(f, "filename").unwrap_or_default();
                let name = s(f, "name").unwrap_or_default();
                let line = f.get("line").and_then(|l| l.as_u64()).unwrap_or(0);
                if is_native(&file, line) {
                    if native.is_none()
                        && py.is_empty()
                        && (name.contains("at::native::") || name.starts_with("aten::"))
                    {
                        // `at::native::_to_copy(at::Tensor const&, ...)` -> `at::native::_to_copy`.
                        native = Some(name.split('(').next().unwrap_or(&name).trim().to_string());
                    }
                    continue;
                }
                py.push(Frame {
                    file,
                    line: u32::try_from(line).unwrap_or(u32::MAX),
                    function: name,
                    line_kind: LineKind::Exact,
                    callee: None,
                });
            }
        }
        let r = Rc::new((py, native));
        if let Some(k) = key {
            self.by_ptr.insert(k, r.clone());
        }
        Ok(r)
    }
}

fn is_native(file: &str, line: u64) -> bool {
    if file == "??" || file.is_empty() || line == 0 {
        return true;
    }
    let lower = file.to_ascii_lowercase();
    [
        ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".cu", ".cuh", ".so",
    ]
    .iter()
    .any(|ext| lower.ends_with(ext))
}

fn alloc_from(bytes: u64, device: i64, frames: &(Vec<Frame>, Option<String>)) -> Allocation {
    let mut a = Allocation::new(bytes, Device::new(DeviceKind::Cuda, Some(device)));
    a.stack = frames.0.clone();
    a.op = frames.1.clone();
    a.op_chain = frames.1.iter().cloned().collect();
    a
}

/// Build evidence from a decoded snapshot value, visiting at most `max_visits` items.
pub fn from_value(root: &Value, path: &Path, max_visits: u64) -> Result<Evidence, EvidenceError> {
    let mut budget = Budget::new(max_visits);
    let mut allocs: AllocationSet<MergeKey> = AllocationSet::default();
    let segs = segments_of(root);
    let traces: Vec<Value> = if root.is_dict() {
        root.get("device_traces")
            .and_then(|t| t.as_seq().map(|v| v.clone()))
            .unwrap_or_default()
    } else {
        Vec::new()
    };
    let looks_right = (root.is_dict()
        && (root.get("segments").is_some() || root.get("device_traces").is_some()))
        || (!root.is_dict()
            && root
                .as_seq()
                .is_some_and(|v| v.iter().all(|s| s.get("total_size").is_some())));
    if !looks_right {
        return Err(EvidenceError::at_byte(
            path,
            0,
            "a data pickle, but not a CUDA memory snapshot (no segments or device_traces)",
        ));
    }
    let mut ev = Evidence::new(EvidenceKind::CudaSnapshot, path);
    let mut cache = FrameCache::default();

    // Final state per device from the segments.
    let mut final_alloc: HashMap<i64, u64> = HashMap::new();
    let mut final_reserved: HashMap<i64, u64> = HashMap::new();
    budget.take_items(&segs, path)?;
    for seg in &segs {
        let dev = seg.get("device").and_then(|d| d.as_i64()).unwrap_or(0);
        *final_alloc.entry(dev).or_default() += u(seg, "allocated_size");
        *final_reserved.entry(dev).or_default() += u(seg, "total_size");
    }

    let mut traced_live: HashSet<(i64, u64)> = HashSet::new();
    for (dev_idx, trace) in traces.iter().enumerate() {
        let dev = dev_idx as i64;
        let Some(entries) = trace.as_seq().map(|v| v.clone()) else {
            continue;
        };
        budget.take_items(&entries, path)?;
        let mut pending: HashMap<u64, usize> = HashMap::new();
        // Deltas for the series: (time, d_alloc, d_reserved).
        let mut deltas: Vec<(i64, i128, i128)> = Vec::new();
        for e in &entries {
            let action = s(e, "action").unwrap_or_default();
            let addr = e.get("addr").and_then(|a| a.as_u64());
            let size = u(e, "size");
            let time_ns = e
                .get("time_us")
                .and_then(|t| t.as_i64())
                .map(|t| t.saturating_mul(1000));
            let t = time_ns.unwrap_or(0);
            match action.as_str() {
                "alloc" => {
                    let fr = cache.get(e.get("frames"), &mut budget, path)?;
                    let mut a = alloc_from(size, dev, &fr);
                    a.alloc_time_ns = time_ns;
                    a.address = addr;
                    let (i, alone) =
                        allocs.push(a, |a| (a.bytes, a.requested_bytes, dev, Rc::as_ptr(&fr)));
                    if let Some(addr) = addr
                        && alone
                    {
                        pending.insert(addr, i);
                    }
                    deltas.push((t, i128::from(size), 0));
                }
                "free_requested" | "free_completed" => {
                    if let Some(addr) = addr
                        && let Some(&i) = pending.get(&addr)
                    {
                        if let Some(a) = allocs.list.get_mut(i) {
                            a.free_time_ns = time_ns;
                        }
                        if action == "free_completed" {
                            pending.remove(&addr);
                            deltas.push((t, -i128::from(size), 0));
                        }
                    } else if action == "free_completed" {
                        deltas.push((t, -i128::from(size), 0));
                    }
                }
                "segment_alloc" | "segment_map" => deltas.push((t, 0, i128::from(size))),
                "segment_free" | "segment_unmap" => deltas.push((t, 0, -i128::from(size))),
                "oom" => {
                    let fr = cache.get(e.get("frames"), &mut budget, path)?;
                    let mut o =
                        OomEvent::new(DeviceKind::Cuda, format!("oom trace entry on device {dev}"));
                    o.device_index = Some(dev);
                    o.requested_bytes = Some(size);
                    o.free_bytes = e.get("device_free").and_then(|f| f.as_u64());
                    o.time_ns = time_ns;
                    o.stack = fr.0.clone();
                    o.frame = fr.0.iter().find(|f| !is_library_file(&f.file)).cloned();
                    ev.ooms.push(o);
                }
                _ => {}
            }
        }
        for addr in pending.keys() {
            traced_live.insert((dev, *addr));
        }
        // Rebuild absolute levels backwards from the final state.
        let net_a: i128 = deltas.iter().map(|d| d.1).sum();
        let net_r: i128 = deltas.iter().map(|d| d.2).sum();
        let mut a_level = i128::from(*final_alloc.get(&dev).unwrap_or(&0)) - net_a;
        let mut r_level = i128::from(*final_reserved.get(&dev).unwrap_or(&0)) - net_r;
        let clamp = |x: i128| u64::try_from(x.max(0)).unwrap_or(u64::MAX);
        let mut points = Vec::with_capacity(deltas.len() + 1);
        if let Some(first) = deltas.first() {
            points.push(MemoryPoint {
                time_ns: first.0,
                allocated: Some(clamp(a_level)),
                reserved: Some(clamp(r_level)),
                active: None,
            });
        }
        for (t, da, dr) in &deltas {
            a_level += da;
            r_level += dr;
            points.push(MemoryPoint {
                time_ns: *t,
                allocated: Some(clamp(a_level)),
                reserved: Some(clamp(r_level)),
                active: None,
            });
        }
        // Fill each OOM's allocated / reserved from the level at its time.
        for o in ev.ooms.iter_mut().filter(|o| o.device_index == Some(dev)) {
            budget.take(points.len(), path)?;
            if let Some(t) = o.time_ns
                && let Some(p) = points.iter().rev().find(|p| p.time_ns <= t)
            {
                o.allocated_bytes = p.allocated;
                o.reserved_bytes = p.reserved;
            }
        }
        if !points.is_empty() {
            ev.series.push(MemorySeries {
                component: "allocator".into(),
                device: Device::new(DeviceKind::Cuda, Some(dev)),
                points,
            });
        }
    }

    // Blocks still allocated that the trace does not cover; older `history` layouts.
    for seg in &segs {
        let dev = seg.get("device").and_then(|d| d.as_i64()).unwrap_or(0);
        let Some(blocks) = seg
            .get("blocks")
            .and_then(|b| b.as_seq().map(|v| v.clone()))
        else {
            continue;
        };
        budget.take_items(&blocks, path)?;
        for b in &blocks {
            let state = s(b, "state").unwrap_or_default();
            let addr = b.get("address").and_then(|a| a.as_u64());
            if let Some(hist) = b.get("history").and_then(|h| h.as_seq().map(|v| v.clone())) {
                if traces.is_empty() {
                    budget.take_items(&hist, path)?;
                    for h in &hist {
                        let fr = cache.get(h.get("frames"), &mut budget, path)?;
                        let mut a = alloc_from(u(h, "real_size"), dev, &fr);
                        a.address = h.get("addr").and_then(|x| x.as_u64());
                        allocs.push(a, |a| (a.bytes, a.requested_bytes, dev, Rc::as_ptr(&fr)));
                    }
                }
                continue;
            }
            if state != "active_allocated" || addr.is_some_and(|a| traced_live.contains(&(dev, a)))
            {
                continue;
            }
            let fr = cache.get(b.get("frames"), &mut budget, path)?;
            let mut a = alloc_from(u(b, "size"), dev, &fr);
            a.requested_bytes = b.get("requested_size").and_then(|x| x.as_u64());
            a.address = addr;
            allocs.push(a, |a| (a.bytes, a.requested_bytes, dev, Rc::as_ptr(&fr)));
        }
    }
    ev.notes.extend(allocs.note());
    ev.allocations = allocs.list;

    // The snapshot moment itself as the last point of each device's series.
    let mut devs: Vec<i64> = final_reserved.keys().copied().collect();
    devs.sort_unstable();
    // One series per traced device so far; indexed so that many devices stay linear.
    let mut series_of_dev: HashMap<i64, usize> = HashMap::new();
    for (i, series) in ev.series.iter().enumerate() {
        if let Some(d) = series.device.index {
            series_of_dev.entry(d).or_insert(i);
        }
    }
    for dev in devs {
        let existing = series_of_dev.get(&dev).copied();
        let end = existing.and_then(|i| ev.series[i].points.last().map(|p| p.time_ns));
        let point = MemoryPoint {
            time_ns: end.unwrap_or(0),
            allocated: final_alloc.get(&dev).copied(),
            reserved: final_reserved.get(&dev).copied(),
            active: None,
        };
        match existing {
            Some(i) => ev.series[i].points.push(point),
            None => ev.series.push(MemorySeries {
                component: "allocator".into(),
                device: Device::new(DeviceKind::Cuda, Some(dev)),
                points: vec![point],
            }),
        }
    }
    if root.get("constructed").and_then(|c| c.as_bool()) == Some(true) {
        ev.notes
            .push("constructed snapshot (top-level \"constructed\": True), not a real dump".into());
    }
    Ok(ev)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny protocol-2 pickle writer for test data.
    enum P {
        S(&'static str),
        I(i64),
        L(Vec<P>),
        D(Vec<(&'static str, P)>),
    }

    fn emit(p: &P, out: &mut Vec<u8>) {
        match p {
            P::S(s) => {
                out.push(b'X');
                out.extend_from_slice(&(s.len() as u32).to_le_bytes());
                out.extend_from_slice(s.as_bytes());
            }
            P::I(i) => {
                out.extend_from_slice(&[0x8a, 8]);
                out.extend_from_slice(&i.to_le_bytes());
            }
            P::L(items) => {
                out.extend_from_slice(b"](");
                for it in items {
                    emit(it, out);
                }
                out.push(b'e');
            }
            P::D(items) => {
                out.extend_from_slice(b"}(");
                for (k, v) in items {
                    emit(&P::S(k), out);
                    emit(v, out);
                }
                out.push(b'u');
            }
        }
    }

    fn pickle(p: &P) -> Vec<u8> {
        let mut out = vec![0x80, 2];
        emit(p, &mut out);
        out.push(b'.');
        out
    }

    fn frame(file: &'static str, line: i64, name: &'static str) -> P {
        P::D(vec![
            ("filename", P::S(file)),
            ("line", P::I(line)),
            ("name", P::S(name)),
        ])
    }

    #[test]
    fn legacy_bare_segment_list_with_history() {
        // torch.cuda.memory_snapshot() before ~2.1: a list of segments, blocks with `history`.
        let seg = P::D(vec![
            ("device", P::I(0)),
            ("address", P::I(1 << 40)),
            ("total_size", P::I(20 << 20)),
            ("allocated_size", P::I(8 << 20)),
            ("active_size", P::I(8 << 20)),
            (
                "blocks",
                P::L(vec![P::D(vec![
                    ("size", P::I(8 << 20)),
                    ("state", P::S("active_allocated")),
                    (
                        "history",
                        P::L(vec![P::D(vec![
                            ("addr", P::I(1 << 40)),
                            ("real_size", P::I(8_000_000)),
                            (
                                "frames",
                                P::L(vec![
                                    frame("??", 0, "c10::alloc"),
                                    frame("/w/m.py", 35, "prepare_mask"),
                                ]),
                            ),
                        ])]),
                    ),
                ])]),
            ),
        ]);
        let data = pickle(&P::L(vec![seg]));
        let ev = read_bytes(&data, Path::new("old.pickle")).expect("reads");
        assert_eq!(ev.allocations.len(), 1);
        let a = &ev.allocations[0];
        assert_eq!(a.bytes, 8_000_000);
        assert_eq!(a.address, Some(1 << 40));
        assert_eq!((a.stack[0].file.as_str(), a.stack[0].line), ("/w/m.py", 35));
        assert_eq!(a.stack.len(), 1, "the C++ frame is not a Python frame");
        let last = ev.series[0].points.last().expect("point");
        assert_eq!(
            (last.allocated, last.reserved),
            (Some(8 << 20), Some(20 << 20))
        );
    }

    #[test]
    fn current_layout_blocks_outside_the_ring_buffer() {
        // A live block whose alloc fell out of the trace still counts as an allocation.
        let block = P::D(vec![
            ("address", P::I(4096)),
            ("size", P::I(1024)),
            ("requested_size", P::I(1000)),
            ("state", P::S("active_allocated")),
            ("frames", P::L(vec![frame("/w/m.py", 12, "load")])),
        ]);
        let seg = P::D(vec![
            ("device", P::I(0)),
            ("total_size", P::I(2 << 20)),
            ("allocated_size", P::I(1024)),
            ("blocks", P::L(vec![block])),
        ]);
        let trace = P::L(vec![P::D(vec![
            ("action", P::S("alloc")),
            ("addr", P::I(8192)),
            ("size", P::I(512)),
            ("time_us", P::I(10)),
            ("frames", P::L(vec![])),
        ])]);
        let root = P::D(vec![
            ("segments", P::L(vec![seg])),
            ("device_traces", P::L(vec![trace])),
        ]);
        let ev = read_bytes(&pickle(&root), Path::new("s.pickle")).expect("reads");
        assert_eq!(ev.allocations.len(), 2);
        let live = ev
            .allocations
            .iter()
            .find(|a| a.address == Some(4096))
            .expect("live block");
        assert_eq!((live.bytes, live.requested_bytes), (1024, Some(1000)));
        assert_eq!(live.stack[0].line, 12);
        // The series is rebuilt backwards: 1024 live at the end, 512 allocated in the trace.
        let pts = &ev.series[0].points;
        assert_eq!(pts[0].allocated, Some(512));
        assert_eq!(pts[1].allocated, Some(1024));
    }
}
