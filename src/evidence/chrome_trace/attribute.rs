//! The join (docs/formats.md section 1): each `[memory]` allocation is attributed to the
//! **outermost** `cpu_op` on the same (pid, tid) whose span contains it; its Python stack is the
//! innermost `python_function` on that thread containing the op's start, walked up by
//! `Python parent id`. A frame's line is exact when the frame just inside it carries `CallFrom`
//! in the same file, otherwise the `def` line of the function, plus the called method's name.
//!
//! [`build`] runs it in steps: span nesting, then per memory event its series point and its
//! allocation -> op join with the stack, then the aggregation of identical allocations.

use super::super::series::SeriesBuild;
use super::super::spans::{NONE, containing, nest_parents};
use super::super::{
    Allocation, Device, DeviceKind, EXACT_ALLOCATIONS, Evidence, EvidenceKind, Frame, LineKind,
    MemoryPoint, MemorySeries, builtin_callee, parse_call_stack, parse_frame_name,
};
use super::records::{
    Collected, FrameRec, HAS_ADDR, HAS_RESERVED, HAS_TOTAL, MemRec, NO_ID, OpRec, PyRec,
};
use super::{MAX_DEVICES, MAX_RECORDS};
use rustc_hash::FxHashMap;
use std::path::Path;
use std::rc::Rc;

/// By start, longest first on ties: the order `nest_parents` needs.
fn sort_spans<T>(v: &mut [T], key: impl Fn(&T) -> (f64, f64)) {
    v.sort_by(|a, b| {
        let (sa, ea) = key(a);
        let (sb, eb) = key(b);
        sa.total_cmp(&sb).then(eb.total_cmp(&ea))
    });
}

fn op_se(o: &OpRec) -> (f64, f64) {
    (o.start, o.end)
}

fn py_se(p: &PyRec) -> (f64, f64) {
    (p.start, p.end)
}

/// One allocation, by interned parts.
#[derive(Debug, Clone, Copy)]
struct AllocRec {
    bytes: u64,
    alloc_ns: i64,
    free_ns: Option<i64>,
    addr: Option<u64>,
    total_after: Option<u64>,
    device: u16,
    chain: u32,
    args: u32,
    stack: u32,
}

impl AllocRec {
    fn lifetime(&self) -> Option<i64> {
        self.free_ns?.checked_sub(self.alloc_ns)
    }
}

/// Interned op chains and stacks met by the join.
struct Tables {
    chain_map: FxHashMap<Box<[u32]>, u32>,
    chains: Vec<Box<[u32]>>,
    stack_map: FxHashMap<Box<[(u32, u32)]>, u32>,
    call_stack_map: FxHashMap<u32, u32>,
    stacks: Vec<Vec<Frame>>,
}

impl Tables {
    fn new() -> Self {
        Tables {
            chain_map: FxHashMap::default(),
            chains: Vec::new(),
            stack_map: FxHashMap::default(),
            call_stack_map: FxHashMap::default(),
            stacks: Vec::new(),
        }
    }
    fn chain(&mut self, names: &[u32]) -> u32 {
        if let Some(&i) = self.chain_map.get(names) {
            return i;
        }
        let i = self.chains.len() as u32;
        self.chains.push(names.into());
        self.chain_map.insert(names.into(), i);
        i
    }

    fn py_stack(&mut self, key: &[(u32, u32)], strs: &[Rc<str>]) -> u32 {
        if let Some(&i) = self.stack_map.get(key) {
            return i;
        }
        let i = self.stacks.len() as u32;
        self.stacks.push(python_stack(key, strs));
        self.stack_map.insert(key.into(), i);
        i
    }

    fn call_stack(&mut self, cs: u32, strs: &[Rc<str>]) -> u32 {
        if let Some(&i) = self.call_stack_map.get(&cs) {
            return i;
        }
        let i = self.stacks.len() as u32;
        self.stacks
            .push(parse_call_stack(&strs[cs as usize], LineKind::FunctionDef));
        self.call_stack_map.insert(cs, i);
        i
    }
}

/// The trace's evidence from the collected records.
pub(super) fn build(mut c: Collected, path: &Path) -> Evidence {
    let mut ev = Evidence::new(EvidenceKind::ChromeTrace, path);
    let base = c.meta.base_time_ns.unwrap_or(0);
    let to_ns = |us: f64| base.saturating_add((us * 1000.0).round() as i64);
    ev.first_op_time_ns = c.first_op_us.map(to_ns);
    if c.meta.profile_memory == Some(false) {
        ev.notes
            .push("trace recorded without profile_memory: no allocations".into());
    }
    if c.meta.with_stack == Some(false) {
        ev.notes
            .push("trace recorded without with_stack: no Python stacks".into());
    }

    let nesting = nest_spans(&mut c);
    // By id; the last event of an id wins (see `frame`).
    c.frames.sort_by_key(|f| f.id);
    c.mems.sort_by(|a, b| a.ts_us.total_cmp(&b.ts_us));

    let mut series = DeviceSeries::new(&c, ev.first_op_time_ns);
    let mut join = Join::new(&c, &nesting);
    for m in &c.mems {
        series.push(m, &c.devices[m.device as usize].1);
        join.take(m);
    }
    ev.series = series.finish();
    ev.allocations = aggregate(&c, &join.tables, &join.allocs, &mut ev.notes);
    if c.meta.dropped_events > 0 {
        ev.notes.push(format!(
            "the trace holds more than {MAX_RECORDS} operator, frame and memory events: the {} \
             after them were left out, so figures cover only the start of the trace",
            c.meta.dropped_events
        ));
    }
    if c.meta.dropped_device_events > 0 {
        ev.notes.push(format!(
            "{} [memory] events of devices past the first {MAX_DEVICES} left out",
            c.meta.dropped_device_events
        ));
    }
    ev
}

/// The enclosing span of each span, per thread (`spans::nest_parents`).
struct Nesting {
    op_parents: Vec<Vec<u32>>,
    py_parents: Vec<Vec<u32>>,
}

/// Step 1, span nesting: sorts each thread's ops and Python frames and nests them.
fn nest_spans(c: &mut Collected) -> Nesting {
    let mut op_parents = Vec::with_capacity(c.ops.len());
    for ops in &mut c.ops {
        sort_spans(ops, op_se);
        op_parents.push(nest_parents(ops, op_se));
    }
    let mut py_parents = Vec::with_capacity(c.pys.len());
    for pys in &mut c.pys {
        sort_spans(pys, py_se);
        py_parents.push(nest_parents(pys, py_se));
    }
    Nesting {
        op_parents,
        py_parents,
    }
}

/// `Total Allocated` of a memory event, when it has one.
fn total_allocated(m: &MemRec) -> Option<i64> {
    (m.flags & HAS_TOTAL != 0).then_some(m.total_allocated)
}

/// Step 2, series: one memory series per device, in order of its first event, built as the
/// (time-sorted) events go by.
struct DeviceSeries {
    first_op_ns: Option<i64>,
    /// Events per device, so that a series knows its length from the start (down-sampling).
    per_device: Vec<usize>,
    series: Vec<SeriesBuild>,
    series_of: Vec<Option<usize>>,
}

impl DeviceSeries {
    fn new(c: &Collected, first_op_ns: Option<i64>) -> Self {
        let mut per_device = vec![0usize; c.devices.len()];
        for m in &c.mems {
            per_device[m.device as usize] += 1;
        }
        DeviceSeries {
            first_op_ns,
            per_device,
            series: Vec::new(),
            series_of: vec![None; c.devices.len()],
        }
    }

    fn push(&mut self, m: &MemRec, device: &Device) {
        let total = total_allocated(m);
        // A series starts from the level before its first event.
        let si = match self.series_of[m.device as usize] {
            Some(i) => i,
            None => {
                let mut s = SeriesBuild::new(
                    device.clone(),
                    self.per_device[m.device as usize] + 1,
                    self.first_op_ns,
                );
                s.push(MemoryPoint {
                    time_ns: m.ts_ns,
                    allocated: total.map(|t| (t - m.bytes).max(0) as u64),
                    reserved: None,
                    active: None,
                });
                self.series.push(s);
                self.series_of[m.device as usize] = Some(self.series.len() - 1);
                self.series.len() - 1
            }
        };
        let reserved = if device.kind == DeviceKind::Cpu || m.flags & HAS_RESERVED == 0 {
            None
        } else {
            Some(m.total_reserved.max(0) as u64)
        };
        self.series[si].push(MemoryPoint {
            time_ns: m.ts_ns,
            allocated: total.map(|t| t.max(0) as u64),
            reserved,
            active: None,
        });
    }

    fn finish(self) -> Vec<MemorySeries> {
        self.series.into_iter().map(SeriesBuild::finish).collect()
    }
}

/// Steps 3 and 4, the allocation -> op join and stack building: each allocation with its op
/// chain, its op's arguments and its stack, and its free time once the address is freed.
struct Join<'c> {
    c: &'c Collected,
    nesting: &'c Nesting,
    tables: Tables,
    /// The empty stack.
    no_stack: u32,
    /// Live allocations by (device, address), for their frees.
    pending: FxHashMap<(u16, u64), usize>,
    allocs: Vec<AllocRec>,
    // Buffers reused from one event to the next.
    chain: Vec<usize>,
    names: Vec<u32>,
    inner: Vec<usize>,
    key: Vec<(u32, u32)>,
}

impl<'c> Join<'c> {
    fn new(c: &'c Collected, nesting: &'c Nesting) -> Self {
        let mut tables = Tables::new();
        let no_stack = tables.py_stack(&[], &c.strings.strs);
        Join {
            c,
            nesting,
            tables,
            no_stack,
            pending: FxHashMap::default(),
            allocs: Vec::new(),
            chain: Vec::new(),
            names: Vec::new(),
            inner: Vec::new(),
            key: Vec::new(),
        }
    }

    fn take(&mut self, m: &MemRec) {
        let addr = (m.flags & HAS_ADDR != 0).then_some(m.addr);
        if m.bytes < 0 {
            if let Some(addr) = addr
                && let Some(i) = self.pending.remove(&(m.device, addr))
            {
                self.allocs[i].free_ns = Some(m.ts_ns);
            }
            return;
        }
        if m.bytes == 0 {
            return;
        }
        let t = m.thread as usize;
        let (chain, args, py_time) = self.op_chain(t, m.ts_us);
        let stack = self.stack(t, py_time, args);
        if let Some(addr) = addr {
            self.pending.insert((m.device, addr), self.allocs.len());
        }
        self.allocs.push(AllocRec {
            bytes: m.bytes as u64,
            alloc_ns: m.ts_ns,
            free_ns: None,
            addr,
            total_after: total_allocated(m).map(|t| t.max(0) as u64),
            device: m.device,
            chain,
            args,
            stack,
        });
    }

    /// Step 3: the ops of thread `t` containing `ts_us`, as (interned chain, the outermost op's
    /// arguments, the time to take the Python stack at: that op's start, else `ts_us`).
    fn op_chain(&mut self, t: usize, ts_us: f64) -> (u32, u32, f64) {
        let c = self.c;
        let ops = &c.ops[t];
        containing(
            ops,
            &self.nesting.op_parents[t],
            ts_us,
            op_se,
            false,
            &mut self.chain,
        );
        let mut py_time = ts_us;
        let (mut chain_id, mut args) = (NONE, NONE);
        if let Some(&outer) = self.chain.last() {
            self.names.clear();
            self.names
                .extend(self.chain.iter().rev().map(|&i| ops[i].name));
            chain_id = self.tables.chain(&self.names);
            args = ops[outer].args;
            py_time = ops[outer].start;
        }
        (chain_id, args, py_time)
    }

    /// Step 4: the Python stack of thread `t` at `py_time`, walked up from the innermost frame
    /// by parent id; without one, the op's own `Call stack` argument.
    fn stack(&mut self, t: usize, py_time: f64, args: u32) -> u32 {
        let c = self.c;
        let strs = &c.strings.strs;
        let pys = &c.pys[t];
        containing(
            pys,
            &self.nesting.py_parents[t],
            py_time,
            py_se,
            true,
            &mut self.inner,
        );
        let mut stack = self.no_stack;
        if let Some(&i) = self.inner.first() {
            self.key.clear();
            let mut cur = pys[i].id;
            let mut guard = 0usize;
            while cur != NO_ID {
                guard += 1;
                if guard > 10_000 {
                    break; // a parent cycle in a malformed trace
                }
                let Some(f) = frame(&c.frames, cur) else {
                    break;
                };
                self.key.push((f.name, f.call_from));
                cur = f.parent;
            }
            stack = self.tables.py_stack(&self.key, strs);
        }
        if self.tables.stacks[stack as usize].is_empty()
            && args != NONE
            && c.args[args as usize].call_stack != NONE
        {
            stack = self
                .tables
                .call_stack(c.args[args as usize].call_stack, strs);
        }
        stack
    }
}

/// The frame of a `Python id` in frames sorted by id; the last event of an id wins.
fn frame(frames: &[FrameRec], id: i64) -> Option<&FrameRec> {
    let n = frames.partition_point(|f| f.id <= id);
    n.checked_sub(1).map(|i| &frames[i]).filter(|f| f.id == id)
}

/// Step 5, aggregation: up to [`EXACT_ALLOCATIONS`], every allocation; past it, identical ones
/// as one, in order of first occurrence, the one that lived longest standing for them (its
/// lifetime is the group's longest).
fn aggregate(
    c: &Collected,
    tables: &Tables,
    allocs: &[AllocRec],
    notes: &mut Vec<String>,
) -> Vec<Allocation> {
    if allocs.len() <= EXACT_ALLOCATIONS {
        return allocs.iter().map(|r| allocation(c, tables, r, 1)).collect();
    }
    type Key = (u64, u16, u32, u32, u32);
    let mut index: FxHashMap<Key, usize> = FxHashMap::default();
    let mut groups: Vec<(AllocRec, u64)> = Vec::new();
    for r in allocs {
        let k = (r.bytes, r.device, r.chain, r.args, r.stack);
        match index.get(&k) {
            Some(&i) => {
                let g = &mut groups[i];
                g.1 += 1;
                if r.lifetime() > g.0.lifetime() {
                    g.0 = *r;
                }
            }
            None => {
                index.insert(k, groups.len());
                groups.push((*r, 1));
            }
        }
    }
    notes.push(format!(
        "{} allocations aggregated into {} entries of identical size, op, inputs and stack",
        allocs.len(),
        groups.len()
    ));
    groups
        .iter()
        .map(|(r, n)| allocation(c, tables, r, *n))
        .collect()
}

/// An allocation as reported, from its interned parts.
fn allocation(c: &Collected, tables: &Tables, r: &AllocRec, count: u64) -> Allocation {
    let strs = &c.strings.strs;
    let mut a = Allocation::new(r.bytes, c.devices[r.device as usize].1.clone());
    a.alloc_time_ns = Some(r.alloc_ns);
    a.free_time_ns = r.free_ns;
    a.address = r.addr;
    a.total_allocated_after = r.total_after;
    a.count = count;
    if r.chain != NONE {
        let names = &tables.chains[r.chain as usize];
        a.op = names.first().map(|&n| strs[n as usize].to_string());
        a.op_chain = names
            .iter()
            .map(|&n| strs[n as usize].to_string())
            .collect();
    }
    if r.args != NONE {
        let args = &c.args[r.args as usize];
        a.input_shapes = c.shapes.items[args.shapes as usize].clone();
        a.input_strides = c.shapes.items[args.strides as usize].clone();
        a.input_dtypes = c.names.items[args.dtypes as usize].clone();
        a.concrete_inputs = c.names.items[args.concrete as usize].clone();
    }
    a.stack = tables.stacks[r.stack as usize].clone();
    a
}

/// Split `file:line` from a `CallFrom` value.
fn split_call_from(s: &str) -> Option<(&str, u32)> {
    let (file, line) = s.rsplit_once(':')?;
    Some((file, line.trim().parse().ok()?))
}

/// The Python stack (innermost first) from the frames walked up from the innermost one, each as
/// (name, `CallFrom`) string ids.
fn python_stack(key: &[(u32, u32)], strs: &[Rc<str>]) -> Vec<Frame> {
    let mut out = Vec::new();
    let mut child: Option<(u32, u32)> = None;
    for &(name, call_from) in key {
        if let Some((file, def_line, function)) = parse_frame_name(&strs[name as usize]) {
            let exact = child
                .filter(|ch| ch.1 != NONE)
                .and_then(|ch| split_call_from(&strs[ch.1 as usize]))
                .filter(|(cf_file, _)| *cf_file == file);
            let frame = match exact {
                Some((_, line)) => Frame {
                    file,
                    line,
                    function,
                    line_kind: LineKind::Exact,
                    callee: None,
                },
                None => Frame {
                    file,
                    line: def_line,
                    function,
                    line_kind: LineKind::FunctionDef,
                    callee: child.and_then(|ch| builtin_callee(&strs[ch.0 as usize])),
                },
            };
            out.push(frame);
        }
        child = Some((name, call_from));
    }
    out
}
