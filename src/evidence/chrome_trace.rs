//! torch.profiler Chrome trace reader (`export_chrome_trace`, `.json` or `.json.gz`).
//!
//! The file is streamed: a `DeserializeSeed` walks the top-level object and the `traceEvents`
//! array one event at a time and keeps only what the join needs (memory events, `cpu_op` spans
//! with their shapes, `python_function` frames), so a 1 GB trace is never held whole.
//!
//! Join (FORMATS.md section 1): each `[memory]` allocation is attributed to the **outermost**
//! `cpu_op` on the same (pid, tid) whose span contains it; its Python stack is the innermost
//! `python_function` on that thread containing the op's start, walked up by `Python parent id`.
//! A frame's line is exact when the frame just inside it carries `CallFrom` in the same file,
//! otherwise the `def` line of the function, plus the called method's name.

use super::{
    Allocation, Device, Evidence, EvidenceError, EvidenceKind, Frame, LineKind, Location,
    MemoryPoint, MemorySeries, builtin_callee, parse_call_stack, parse_frame_name, parse_name_list,
    parse_shape_list, parse_us_decimal_to_ns,
};
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::cell::Cell;
use std::collections::HashMap;
use std::fmt;
use std::io::{BufReader, Read};
use std::path::Path;
use std::rc::Rc;

/// A pid or tid: torch writes ints, bookkeeping events use strings.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Deserialize)]
#[serde(untagged)]
enum Id {
    Int(i64),
    Str(String),
}

/// `ts`/`dur`: a float (torch) or a decimal string (Ascend `trace_view.json`).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum Num {
    F(f64),
    S(String),
}

impl Num {
    /// Microseconds as f64 (for ordering and containment).
    fn us(&self) -> Option<f64> {
        match self {
            Num::F(v) => Some(*v),
            Num::S(s) => s.trim().parse().ok(),
        }
    }

    /// Exact nanoseconds where the text allows it.
    fn ns(&self) -> Option<i64> {
        match self {
            Num::F(v) => v.is_finite().then(|| (v * 1000.0).round() as i64),
            Num::S(s) => parse_us_decimal_to_ns(s),
        }
    }
}

#[derive(Debug, Default, Deserialize)]
struct RawArgs {
    #[serde(rename = "Bytes")]
    bytes: Option<i64>,
    #[serde(rename = "Addr")]
    addr: Option<u64>,
    #[serde(rename = "Total Allocated")]
    total_allocated: Option<i64>,
    #[serde(rename = "Total Reserved")]
    total_reserved: Option<i64>,
    #[serde(rename = "Device Type")]
    device_type: Option<i64>,
    #[serde(rename = "Device Id")]
    device_id: Option<i64>,
    #[serde(rename = "Input Dims")]
    input_dims: Option<Value>,
    #[serde(rename = "Input type")]
    input_type: Option<Value>,
    #[serde(rename = "Input Strides")]
    input_strides: Option<Value>,
    #[serde(rename = "Concrete Inputs")]
    concrete_inputs: Option<Value>,
    #[serde(rename = "Python id")]
    python_id: Option<i64>,
    #[serde(rename = "Python parent id")]
    python_parent_id: Option<i64>,
    #[serde(rename = "CallFrom")]
    call_from: Option<String>,
    #[serde(rename = "Call stack")]
    call_stack: Option<String>,
}

#[derive(Debug, Deserialize)]
struct RawEvent {
    ph: Option<String>,
    cat: Option<String>,
    name: Option<String>,
    pid: Option<Id>,
    tid: Option<Id>,
    ts: Option<Num>,
    dur: Option<Num>,
    #[serde(default)]
    args: Option<RawArgs>,
}

/// Trace-level facts from the top-level object.
#[derive(Debug, Default, Clone)]
pub struct TraceMeta {
    pub base_time_ns: Option<i64>,
    pub with_stack: Option<bool>,
    pub profile_memory: Option<bool>,
    pub record_shapes: Option<bool>,
    pub event_count: u64,
}

#[derive(Debug, Clone)]
struct MemEvent {
    thread: u32,
    ts_us: f64,
    ts_ns: i64,
    bytes: i64,
    addr: Option<u64>,
    total_allocated: Option<i64>,
    total_reserved: Option<i64>,
    device: Device,
}

#[derive(Debug, Clone)]
struct OpSpan {
    start: f64,
    end: f64,
    name: Rc<str>,
    /// Shapes etc., only when the event had any (compact: strings interned, no slack).
    args: Option<Box<OpArgs>>,
}

#[derive(Debug, Clone)]
struct OpArgs {
    shapes: Box<[Box<[i64]>]>,
    strides: Box<[Box<[i64]>]>,
    dtypes: Box<[Rc<str>]>,
    concrete: Box<[Rc<str>]>,
    call_stack: Option<Rc<str>>,
}

fn to_vecs(v: &[Box<[i64]>]) -> Vec<Vec<i64>> {
    v.iter().map(|d| d.to_vec()).collect()
}

fn to_strings(v: &[Rc<str>]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[derive(Debug, Clone)]
struct PySpan {
    start: f64,
    end: f64,
    id: Option<i64>,
}

#[derive(Debug, Clone)]
struct PyFrame {
    name: Rc<str>,
    parent: Option<i64>,
    call_from: Option<Rc<str>>,
}

/// What the streaming pass keeps.
#[derive(Default)]
struct Collected {
    meta: TraceMeta,
    threads: HashMap<(Id, Id), u32>,
    mems: Vec<MemEvent>,
    ops: Vec<Vec<OpSpan>>,
    pys: Vec<Vec<PySpan>>,
    frames: HashMap<i64, PyFrame>,
    first_op_us: Option<f64>,
    strings: HashMap<String, Rc<str>>,
}

impl Collected {
    fn thread(&mut self, pid: Option<Id>, tid: Option<Id>) -> u32 {
        let key = (pid.unwrap_or(Id::Int(0)), tid.unwrap_or(Id::Int(0)));
        let next = self.threads.len() as u32;
        let idx = *self.threads.entry(key).or_insert(next);
        if idx == next {
            self.ops.push(Vec::new());
            self.pys.push(Vec::new());
        }
        idx
    }

    fn intern(&mut self, s: String) -> Rc<str> {
        if let Some(r) = self.strings.get(&s) {
            return r.clone();
        }
        let r: Rc<str> = Rc::from(s.as_str());
        self.strings.insert(s, r.clone());
        r
    }

    fn op_args(&mut self, args: RawArgs) -> Option<Box<OpArgs>> {
        let boxed = |v: Vec<Vec<i64>>| {
            v.into_iter()
                .map(Vec::into_boxed_slice)
                .collect::<Box<[_]>>()
        };
        let shapes = boxed(shapes_of(args.input_dims.as_ref()));
        let strides = boxed(shapes_of(args.input_strides.as_ref()));
        let dtypes = names_of(args.input_type.as_ref())
            .into_iter()
            .map(|s| self.intern(s))
            .collect::<Box<[_]>>();
        let concrete = names_of(args.concrete_inputs.as_ref())
            .into_iter()
            .map(|s| self.intern(s))
            .collect::<Box<[_]>>();
        let call_stack = args.call_stack.map(|c| self.intern(c));
        if shapes.is_empty()
            && strides.is_empty()
            && dtypes.is_empty()
            && concrete.is_empty()
            && call_stack.is_none()
        {
            return None;
        }
        Some(Box::new(OpArgs {
            shapes,
            strides,
            dtypes,
            concrete,
            call_stack,
        }))
    }

    fn push(&mut self, ev: RawEvent) {
        self.meta.event_count += 1;
        let ph = ev.ph.as_deref().unwrap_or("");
        let cat = ev.cat.as_deref().unwrap_or("");
        let name = ev.name.as_deref().unwrap_or("");
        if ph == "i" && name == "[memory]" {
            let Some(args) = ev.args else { return };
            let (Some(ts), Some(bytes)) = (ev.ts.as_ref(), args.bytes) else {
                return;
            };
            let Some(ts_us) = ts.us() else { return };
            let rel_ns = ts.ns().unwrap_or(0);
            let ts_ns = self.meta.base_time_ns.unwrap_or(0).saturating_add(rel_ns);
            let thread = self.thread(ev.pid, ev.tid);
            let device =
                Device::from_c10(args.device_type.unwrap_or(0), args.device_id.unwrap_or(-1));
            self.mems.push(MemEvent {
                thread,
                ts_us,
                ts_ns,
                bytes,
                addr: args.addr,
                total_allocated: args.total_allocated,
                total_reserved: args.total_reserved,
                device,
            });
        } else if ph == "X" && (cat == "cpu_op" || cat == "python_function") {
            let Some(start) = ev.ts.as_ref().and_then(Num::us) else {
                return;
            };
            let dur = ev.dur.as_ref().and_then(Num::us).unwrap_or(0.0);
            let end = start + dur.max(0.0);
            let thread = self.thread(ev.pid, ev.tid);
            let args = ev.args.unwrap_or_default();
            if cat == "cpu_op" {
                self.first_op_us = Some(self.first_op_us.map_or(start, |f| f.min(start)));
                let name = self.intern(ev.name.unwrap_or_default());
                let args = self.op_args(args);
                self.ops[thread as usize].push(OpSpan {
                    start,
                    end,
                    name,
                    args,
                });
            } else {
                self.pys[thread as usize].push(PySpan {
                    start,
                    end,
                    id: args.python_id,
                });
                if let Some(id) = args.python_id {
                    let name = self.intern(ev.name.unwrap_or_default());
                    let call_from = args.call_from.map(|c| self.intern(c));
                    self.frames.insert(
                        id,
                        PyFrame {
                            name,
                            parent: args.python_parent_id,
                            call_from,
                        },
                    );
                }
            }
        }
    }
}

/// `Input Dims` / `Input Strides`: a list of int lists (torch) or a `;`-joined string (Ascend).
/// Non-flat entries (tensor lists) become empty shapes.
fn shapes_of(v: Option<&Value>) -> Vec<Vec<i64>> {
    match v {
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                Value::Array(dims) => dims
                    .iter()
                    .map(Value::as_i64)
                    .collect::<Option<Vec<_>>>()
                    .unwrap_or_default(),
                _ => Vec::new(),
            })
            .collect(),
        Some(Value::String(s)) => parse_shape_list(s),
        _ => Vec::new(),
    }
}

/// `Input type` / `Concrete Inputs`: a list of strings or a `;`-joined string.
fn names_of(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                Value::String(s) => s.clone(),
                Value::Null => String::new(),
                other => other.to_string(),
            })
            .collect(),
        Some(Value::String(s)) => parse_name_list(s),
        _ => Vec::new(),
    }
}

/// Seed for one element of `traceEvents`: deserializes it and hands it to the collector.
struct EventSeed<'a>(&'a mut Collected);

impl<'de> DeserializeSeed<'de> for EventSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        // An event that is not an object (or has odd field types) is skipped, not fatal.
        let v = MaybeEvent::deserialize(d)?;
        if let MaybeEvent::Event(ev) = v {
            self.0.push(*ev);
        }
        Ok(())
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum MaybeEvent {
    Event(Box<RawEvent>),
    Other(IgnoredAny),
}

/// Seed for the `traceEvents` array (or a bare top-level array).
struct EventsSeed<'a>(&'a mut Collected);

impl<'de> DeserializeSeed<'de> for EventsSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for EventsSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of trace events")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(EventSeed(self.0))?.is_some() {}
        Ok(())
    }
}

/// Seed for the whole file: `{..., "traceEvents": [...]}` or a bare array.
struct TopSeed<'a> {
    c: &'a mut Collected,
    saw_events: &'a Cell<bool>,
}

impl<'de> DeserializeSeed<'de> for TopSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Flag {
    I(i64),
    B(bool),
    Other(IgnoredAny),
}

impl Flag {
    fn get(&self) -> Option<bool> {
        match self {
            Flag::I(i) => Some(*i != 0),
            Flag::B(b) => Some(*b),
            Flag::Other(_) => None,
        }
    }
}

impl<'de> Visitor<'de> for TopSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a Chrome trace object with traceEvents, or an array of events")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        self.saw_events.set(true);
        EventsSeed(self.c).visit_seq(seq)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "traceEvents" => {
                    self.saw_events.set(true);
                    map.next_value_seed(EventsSeed(self.c))?;
                }
                "baseTimeNanoseconds" => {
                    let v: Option<Num> = map.next_value().unwrap_or(None);
                    self.c.meta.base_time_ns = v.and_then(|n| match n {
                        Num::F(f) => Some(f as i64),
                        Num::S(s) => s.trim().parse().ok(),
                    });
                }
                "with_stack" => self.c.meta.with_stack = map.next_value::<Flag>()?.get(),
                "profile_memory" => self.c.meta.profile_memory = map.next_value::<Flag>()?.get(),
                "record_shapes" => self.c.meta.record_shapes = map.next_value::<Flag>()?.get(),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Err(E::custom("not a Chrome trace: a JSON string"))
    }
}

/// Counts the bytes handed to the JSON parser, for error offsets.
pub(crate) struct Counting<R> {
    inner: R,
    count: Rc<Cell<u64>>,
}

impl<R> Counting<R> {
    pub(crate) fn new(inner: R, count: Rc<Cell<u64>>) -> Self {
        Counting { inner, count }
    }
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.set(self.count.get() + n as u64);
        Ok(n)
    }
}

/// Read a trace file (`.json` or gzip, detected by magic bytes).
pub fn read_path(path: &Path) -> Result<Evidence, EvidenceError> {
    let file = std::fs::File::open(path)
        .map_err(|e| EvidenceError::plain(path, format!("cannot open: {e}")))?;
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let gz = {
        use std::io::BufRead;
        let head = reader
            .fill_buf()
            .map_err(|e| EvidenceError::plain(path, format!("cannot read: {e}")))?;
        head.starts_with(&[0x1f, 0x8b])
    };
    if gz {
        let dec = BufReader::with_capacity(1 << 16, flate2::read::MultiGzDecoder::new(reader));
        read_from(dec, path, true)
    } else {
        read_from(reader, path, false)
    }
}

/// Read a trace from any reader; `path` is only used in errors and the result.
pub fn read_from<R: Read>(reader: R, path: &Path, gz: bool) -> Result<Evidence, EvidenceError> {
    let collected = collect(reader, path, gz)?;
    Ok(build(collected, path))
}

fn collect<R: Read>(reader: R, path: &Path, gz: bool) -> Result<Collected, EvidenceError> {
    let count = Rc::new(Cell::new(0u64));
    let counting = Counting {
        inner: reader,
        count: count.clone(),
    };
    let mut de = serde_json::Deserializer::from_reader(counting);
    let mut c = Collected::default();
    let saw = Cell::new(false);
    let res = TopSeed {
        c: &mut c,
        saw_events: &saw,
    }
    .deserialize(&mut de)
    .and_then(|()| de.end());
    if let Err(e) = res {
        let what = if e.is_io() {
            if gz {
                "corrupt gzip stream"
            } else {
                "read error"
            }
        } else if e.is_eof() {
            "truncated JSON"
        } else {
            "invalid trace JSON"
        };
        let offset = count.get();
        let where_ = if gz {
            " (offset in the decompressed stream)"
        } else {
            ""
        };
        return Err(EvidenceError::new(
            path,
            Location::Byte {
                offset,
                line: Some(e.line()),
                column: Some(e.column()),
            },
            format!("{what}{where_}: {e}"),
        ));
    }
    if !saw.get() {
        return Err(EvidenceError::at_byte(
            path,
            0,
            "not a Chrome trace: no traceEvents array",
        ));
    }
    Ok(c)
}

/// Spans of one thread sorted by (start asc, end desc), each with its parent index (nesting).
struct Nest {
    starts: Vec<f64>,
    ends: Vec<f64>,
    parent: Vec<Option<usize>>,
}

impl Nest {
    fn new(spans: &[(f64, f64)]) -> Nest {
        let mut parent = Vec::with_capacity(spans.len());
        let mut stack: Vec<usize> = Vec::new();
        for (i, &(s, _)) in spans.iter().enumerate() {
            while let Some(&top) = stack.last() {
                if spans[top].1 < s {
                    stack.pop();
                } else {
                    break;
                }
            }
            parent.push(stack.last().copied());
            stack.push(i);
        }
        Nest {
            starts: spans.iter().map(|s| s.0).collect(),
            ends: spans.iter().map(|s| s.1).collect(),
            parent,
        }
    }

    /// Indices of spans containing `t`, innermost first.
    fn containing(&self, t: f64) -> Vec<usize> {
        let n = self.starts.partition_point(|&s| s <= t);
        let mut out = Vec::new();
        let mut cur = n.checked_sub(1);
        // Siblings that started before t but ended: climb to the ancestors that contain t.
        while let Some(i) = cur {
            if self.ends[i] >= t {
                out.push(i);
            }
            cur = self.parent[i];
        }
        out
    }
}

fn sort_spans<T>(v: &mut [T], key: impl Fn(&T) -> (f64, f64)) {
    v.sort_by(|a, b| {
        let (sa, ea) = key(a);
        let (sb, eb) = key(b);
        sa.total_cmp(&sb).then(eb.total_cmp(&ea))
    });
}

fn build(mut c: Collected, path: &Path) -> Evidence {
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

    let mut op_nests = Vec::with_capacity(c.ops.len());
    for ops in &mut c.ops {
        sort_spans(ops, |o| (o.start, o.end));
        op_nests.push(Nest::new(
            &ops.iter().map(|o| (o.start, o.end)).collect::<Vec<_>>(),
        ));
    }
    let mut py_nests = Vec::with_capacity(c.pys.len());
    for pys in &mut c.pys {
        sort_spans(pys, |p| (p.start, p.end));
        py_nests.push(Nest::new(
            &pys.iter().map(|p| (p.start, p.end)).collect::<Vec<_>>(),
        ));
    }

    c.mems.sort_by(|a, b| a.ts_us.total_cmp(&b.ts_us));
    let mut pending: HashMap<(Device, u64), usize> = HashMap::new();
    let mut series: Vec<MemorySeries> = Vec::new();
    for m in &c.mems {
        // Memory series, one per device, starting from the level before the first event.
        let si = match series.iter().position(|s| s.device == m.device) {
            Some(i) => i,
            None => {
                series.push(MemorySeries {
                    component: "allocator".into(),
                    device: m.device.clone(),
                    points: Vec::new(),
                });
                let before = m.total_allocated.map(|t| (t - m.bytes).max(0) as u64);
                let s = series.len() - 1;
                series[s].points.push(MemoryPoint {
                    time_ns: m.ts_ns,
                    allocated: before,
                    reserved: None,
                    active: None,
                });
                s
            }
        };
        let reserved = if m.device.kind == super::DeviceKind::Cpu {
            None
        } else {
            m.total_reserved.map(|r| r.max(0) as u64)
        };
        series[si].points.push(MemoryPoint {
            time_ns: m.ts_ns,
            allocated: m.total_allocated.map(|t| t.max(0) as u64),
            reserved,
            active: None,
        });

        if m.bytes < 0 {
            if let Some(addr) = m.addr
                && let Some(i) = pending.remove(&(m.device.clone(), addr))
                && let Some(a) = ev.allocations.get_mut(i)
            {
                a.free_time_ns = Some(m.ts_ns);
            }
            continue;
        }
        if m.bytes == 0 {
            continue;
        }
        let mut a = Allocation::new(m.bytes as u64, m.device.clone());
        a.alloc_time_ns = Some(m.ts_ns);
        a.address = m.addr;
        a.total_allocated_after = m.total_allocated.map(|t| t.max(0) as u64);
        let t = m.thread as usize;
        let ops = &c.ops[t];
        let chain = op_nests[t].containing(m.ts_us);
        let mut py_time = m.ts_us;
        if let Some(&outer_i) = chain.last() {
            let outer = &ops[outer_i];
            a.op = Some(outer.name.to_string());
            a.op_chain = chain
                .iter()
                .rev()
                .map(|&i| ops[i].name.to_string())
                .collect();
            if let Some(args) = &outer.args {
                a.input_shapes = to_vecs(&args.shapes);
                a.input_strides = to_vecs(&args.strides);
                a.input_dtypes = to_strings(&args.dtypes);
                a.concrete_inputs = to_strings(&args.concrete);
            }
            py_time = outer.start;
        }
        let pys = &c.pys[t];
        if let Some(&inner_py) = py_nests[t].containing(py_time).first() {
            a.stack = python_stack(pys[inner_py].id, &c.frames);
        }
        if a.stack.is_empty()
            && let Some(cs) = chain
                .last()
                .and_then(|&i| ops[i].args.as_ref()?.call_stack.as_deref())
        {
            a.stack = parse_call_stack(cs, LineKind::FunctionDef);
        }
        if let Some(addr) = m.addr {
            pending.insert((m.device.clone(), addr), ev.allocations.len());
        }
        ev.allocations.push(a);
    }
    ev.series = series;
    ev
}

/// Split `file:line` from a `CallFrom` value.
fn split_call_from(s: &str) -> Option<(&str, u32)> {
    let (file, line) = s.rsplit_once(':')?;
    Some((file, line.trim().parse().ok()?))
}

/// The Python stack (innermost first) from the innermost `python_function` frame id.
fn python_stack(innermost: Option<i64>, frames: &HashMap<i64, PyFrame>) -> Vec<Frame> {
    let mut out = Vec::new();
    let mut child: Option<&PyFrame> = None;
    let mut cur = innermost;
    let mut guard = 0usize;
    while let Some(id) = cur {
        guard += 1;
        if guard > 10_000 {
            break; // a parent cycle in a malformed trace
        }
        let Some(f) = frames.get(&id) else { break };
        if let Some((file, def_line, function)) = parse_frame_name(&f.name) {
            let exact = child
                .and_then(|ch| ch.call_from.as_deref())
                .and_then(split_call_from)
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
                    callee: child.and_then(|ch| builtin_callee(&ch.name)),
                },
            };
            out.push(frame);
        }
        child = Some(f);
        cur = f.parent;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nest_containing() {
        let spans = [(0.0, 10.0), (1.0, 5.0), (2.0, 3.0), (6.0, 9.0)];
        let n = Nest::new(&spans);
        assert_eq!(n.containing(2.5), vec![2, 1, 0]);
        assert_eq!(n.containing(5.5), vec![0]);
        assert_eq!(n.containing(7.0), vec![3, 0]);
        assert!(n.containing(11.0).is_empty());
    }

    #[test]
    fn bare_array_and_strings() {
        let text = r#"[{"ph":"X","cat":"cpu_op","name":"aten::to","pid":1,"tid":1,"ts":"10.000","dur":5.0,
            "args":{"Input Dims":"2,3;\r\n;\r\n","Call stack":"/m.py(35): f;\r\n/m.py(46): g"}},
            {"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":"12.5","args":{"Bytes":8,"Addr":1,"Total Allocated":8}},
            7, {"ph":"M"}]"#;
        let ev = read_from(text.as_bytes(), Path::new("t.json"), false).expect("parses");
        assert_eq!(ev.allocations.len(), 1);
        let a = &ev.allocations[0];
        assert_eq!(a.op.as_deref(), Some("aten::to"));
        assert_eq!(a.input_shapes, vec![vec![2, 3], vec![]]);
        assert_eq!(a.stack[0].file, "/m.py");
        assert_eq!(a.alloc_time_ns, Some(12_500));
    }

    #[test]
    fn truncated_reports_offset() {
        let text = br#"{"traceEvents": [{"ph":"X","cat":"cpu_op","name":"aten::to","ts":1"#;
        let err = read_from(&text[..], Path::new("t.json"), false).expect_err("truncated");
        let s = err.to_string();
        assert!(s.starts_with("t.json: byte "), "{s}");
        assert!(s.contains("truncated JSON"), "{s}");
        assert!(
            matches!(err.location, Location::Byte { offset, .. } if offset == text.len() as u64)
        );
    }
}
