//! torch.profiler Chrome trace reader (`export_chrome_trace`, `.json` or `.json.gz`).
//!
//! The file is streamed in chunks: a small structural scanner finds each element of the
//! `traceEvents` array in the buffer, and that element alone is deserialized from the slice,
//! borrowing its strings (`[memory]` events, `cpu_op` spans, `python_function` frames; anything
//! else is read without allocating). What the join needs is kept in compact records: names and
//! argument lists are interned, so a 1 GB trace costs tens of bytes per event, never the text.
//!
//! Join (FORMATS.md section 1): each `[memory]` allocation is attributed to the **outermost**
//! `cpu_op` on the same (pid, tid) whose span contains it; its Python stack is the innermost
//! `python_function` on that thread containing the op's start, walked up by `Python parent id`.
//! A frame's line is exact when the frame just inside it carries `CallFrom` in the same file,
//! otherwise the `def` line of the function, plus the called method's name.
//!
//! Very large traces: past [`EXACT_ALLOCATIONS`] allocations, identical ones (same size, device,
//! op chain, op arguments and stack) are given as one [`Allocation`] with `count`, keeping the
//! instance that lived longest; past [`SERIES_POINTS`] events a memory series keeps per time
//! bucket its extremes (and every point the report reads: first, last, peaks, the level at the
//! first operator), so the report's figures are those of the whole series.

use super::spans::{NONE, containing, nest_parents};
use super::{
    Allocation, Device, Evidence, EvidenceError, EvidenceKind, Frame, LineKind, Location,
    MemoryPoint, MemorySeries, builtin_callee, parse_call_stack, parse_frame_name, parse_name_list,
    parse_shape_list, parse_us_decimal_to_ns,
};
use rustc_hash::FxHashMap;
use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;
use std::io::{BufReader, Read};
use std::path::Path;
use std::rc::Rc;

pub use super::EXACT_ALLOCATIONS;
/// Points of a memory series kept as they are up to this count; beyond it, bucket extremes.
pub const SERIES_POINTS: usize = 100_000;
/// Buckets of a down-sampled series (at most 8 points kept per bucket).
const SERIES_BUCKETS: usize = 6_000;
/// Records (ops, Python frames, memory events) kept from one trace: at about 40 bytes each, this
/// caps the reader's memory near 300 MB whatever the file's size (a real trace has about one such
/// event per 400 bytes, so this is a 2 GB trace); later events are counted in a note.
pub const MAX_RECORDS: usize = 6_000_000;
/// Distinct (device type, device id) pairs kept; a real trace has a handful.
pub const MAX_DEVICES: usize = 256;
/// Bytes read from the input at a time.
const CHUNK: usize = 4 << 20;

const NO_ID: i64 = i64::MIN;

// ---------------------------------------------------------------------------------------------
// Borrowed event model

/// A string borrowed from the input when it has no escapes.
struct Str<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Cow<'de, str>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Cow::Borrowed(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Cow::Owned(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Cow::Owned(v))
            }
        }
        d.deserialize_str(V).map(Str)
    }
}

/// A pid or tid: torch writes ints, bookkeeping events use strings.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Id {
    Int(i64),
    Str(String),
}

impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Id;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an integer or a string")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Id, E> {
                Ok(Id::Int(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Id, E> {
                i64::try_from(v)
                    .map(Id::Int)
                    .map_err(|_| E::custom("id out of range"))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Id, E> {
                Ok(Id::Str(v.to_owned()))
            }
        }
        d.deserialize_any(V)
    }
}

/// `ts`/`dur`: a float (torch) or a decimal string (Ascend `trace_view.json`).
#[derive(Debug, Clone)]
enum Num<'a> {
    F(f64),
    S(Cow<'a, str>),
}

impl<'de: 'a, 'a> Deserialize<'de> for Num<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Num<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number or a decimal string")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                Ok(Num::F(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(Num::F(v as f64))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(Num::F(v as f64))
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Num::S(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Num::S(Cow::Owned(v.to_owned())))
            }
        }
        d.deserialize_any(V)
    }
}

impl Num<'_> {
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

#[derive(Default, Deserialize)]
struct RawArgs<'a> {
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
    #[serde(rename = "Input Dims", borrow)]
    input_dims: Option<&'a RawValue>,
    #[serde(rename = "Input type", borrow)]
    input_type: Option<&'a RawValue>,
    #[serde(rename = "Input Strides", borrow)]
    input_strides: Option<&'a RawValue>,
    #[serde(rename = "Concrete Inputs", borrow)]
    concrete_inputs: Option<&'a RawValue>,
    #[serde(rename = "Python id")]
    python_id: Option<i64>,
    #[serde(rename = "Python parent id")]
    python_parent_id: Option<i64>,
    #[serde(rename = "CallFrom", borrow)]
    call_from: Option<Str<'a>>,
    #[serde(rename = "Call stack", borrow)]
    call_stack: Option<Str<'a>>,
}

#[derive(Deserialize)]
struct RawEvent<'a> {
    #[serde(borrow)]
    ph: Option<Str<'a>>,
    #[serde(borrow)]
    cat: Option<Str<'a>>,
    #[serde(borrow)]
    name: Option<Str<'a>>,
    pid: Option<Id>,
    tid: Option<Id>,
    #[serde(borrow)]
    ts: Option<Num<'a>>,
    #[serde(borrow)]
    dur: Option<Num<'a>>,
    #[serde(default, borrow)]
    args: Option<RawArgs<'a>>,
}

fn text<'s>(s: &'s Option<Str<'_>>) -> &'s str {
    s.as_ref().map_or("", |s| &s.0)
}

/// Trace-level facts from the top-level object.
#[derive(Debug, Default, Clone)]
pub struct TraceMeta {
    pub base_time_ns: Option<i64>,
    pub with_stack: Option<bool>,
    pub profile_memory: Option<bool>,
    pub record_shapes: Option<bool>,
    pub event_count: u64,
    /// `[memory]` events of devices past [`MAX_DEVICES`], left out.
    pub dropped_device_events: u64,
    /// Events past [`MAX_RECORDS`] kept records, left out.
    pub dropped_events: u64,
}

// ---------------------------------------------------------------------------------------------
// Compact records

#[derive(Debug, Clone, Copy)]
struct OpRec {
    start: f64,
    end: f64,
    name: u32,
    /// Index in `Collected::args`, or NONE.
    args: u32,
}

#[derive(Debug, Clone, Copy)]
struct PyRec {
    start: f64,
    end: f64,
    /// `Python id`, or NO_ID.
    id: i64,
}

#[derive(Debug, Clone, Copy)]
struct FrameRec {
    id: i64,
    parent: i64,
    name: u32,
    call_from: u32,
}

const HAS_ADDR: u8 = 1;
const HAS_TOTAL: u8 = 2;
const HAS_RESERVED: u8 = 4;

#[derive(Debug, Clone, Copy)]
struct MemRec {
    ts_us: f64,
    ts_ns: i64,
    bytes: i64,
    addr: u64,
    total_allocated: i64,
    total_reserved: i64,
    thread: u32,
    device: u16,
    flags: u8,
}

/// Interned argument lists of one op (indices in the collector's tables).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct OpArgs {
    shapes: u32,
    strides: u32,
    dtypes: u32,
    concrete: u32,
    call_stack: u32,
}

#[derive(Default)]
struct Interner {
    map: FxHashMap<Box<str>, u32>,
    strs: Vec<Rc<str>>,
}

impl Interner {
    fn id(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.map.get(s) {
            return i;
        }
        let i = self.strs.len() as u32;
        self.strs.push(Rc::from(s));
        self.map.insert(s.into(), i);
        i
    }
}

/// Raw JSON texts of an argument list, interned with their parsed form.
struct RawTable<T> {
    map: FxHashMap<Box<str>, u32>,
    items: Vec<T>,
}

impl<T: Default> RawTable<T> {
    fn new() -> Self {
        // Index 0: the field is absent.
        RawTable {
            map: FxHashMap::default(),
            items: vec![T::default()],
        }
    }

    fn id(&mut self, raw: Option<&RawValue>, parse: impl FnOnce(&Value) -> T) -> u32 {
        let Some(raw) = raw else { return 0 };
        let text = raw.get();
        if let Some(&i) = self.map.get(text) {
            return i;
        }
        let v: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        let i = self.items.len() as u32;
        self.items.push(parse(&v));
        self.map.insert(text.into(), i);
        i
    }
}

/// What the streaming pass keeps.
struct Collected {
    meta: TraceMeta,
    threads: FxHashMap<(Id, Id), u32>,
    last_thread: Option<(Id, Id, u32)>,
    mems: Vec<MemRec>,
    ops: Vec<Vec<OpRec>>,
    pys: Vec<Vec<PyRec>>,
    frames: Vec<FrameRec>,
    first_op_us: Option<f64>,
    strings: Interner,
    shapes: RawTable<Vec<Vec<i64>>>,
    names: RawTable<Vec<String>>,
    args_map: FxHashMap<OpArgs, u32>,
    args: Vec<OpArgs>,
    devices: Vec<((i64, i64), Device)>,
    device_index: FxHashMap<(i64, i64), u16>,
    /// Records kept so far (see [`MAX_RECORDS`]).
    records: usize,
}

impl Collected {
    fn new() -> Self {
        Collected {
            meta: TraceMeta::default(),
            threads: FxHashMap::default(),
            last_thread: None,
            mems: Vec::new(),
            ops: Vec::new(),
            pys: Vec::new(),
            frames: Vec::new(),
            first_op_us: None,
            strings: Interner::default(),
            shapes: RawTable::new(),
            names: RawTable::new(),
            args_map: FxHashMap::default(),
            args: Vec::new(),
            devices: Vec::new(),
            device_index: FxHashMap::default(),
            records: 0,
        }
    }

    fn thread(&mut self, pid: Option<Id>, tid: Option<Id>) -> u32 {
        let pid = pid.unwrap_or(Id::Int(0));
        let tid = tid.unwrap_or(Id::Int(0));
        if let Some((p, t, i)) = &self.last_thread
            && *p == pid
            && *t == tid
        {
            return *i;
        }
        let next = self.threads.len() as u32;
        let idx = *self
            .threads
            .entry((pid.clone(), tid.clone()))
            .or_insert(next);
        if idx == next {
            self.ops.push(Vec::new());
            self.pys.push(Vec::new());
        }
        self.last_thread = Some((pid, tid, idx));
        idx
    }

    /// The index of a device, or None past [`MAX_DEVICES`] distinct ones.
    fn device(&mut self, code: i64, index: i64) -> Option<u16> {
        if let Some(&i) = self.device_index.get(&(code, index)) {
            return Some(i);
        }
        if self.devices.len() >= MAX_DEVICES {
            return None;
        }
        let i = self.devices.len() as u16;
        self.devices
            .push(((code, index), Device::from_c10(code, index)));
        self.device_index.insert((code, index), i);
        Some(i)
    }

    fn op_args(&mut self, args: &RawArgs) -> u32 {
        let shapes = self.shapes.id(args.input_dims, |v| shapes_of(Some(v)));
        let strides = self.shapes.id(args.input_strides, |v| shapes_of(Some(v)));
        let dtypes = self.names.id(args.input_type, |v| names_of(Some(v)));
        let concrete = self.names.id(args.concrete_inputs, |v| names_of(Some(v)));
        let call_stack = args
            .call_stack
            .as_ref()
            .map_or(NONE, |c| self.strings.id(&c.0));
        if self.shapes.items[shapes as usize].is_empty()
            && self.shapes.items[strides as usize].is_empty()
            && self.names.items[dtypes as usize].is_empty()
            && self.names.items[concrete as usize].is_empty()
            && call_stack == NONE
        {
            return NONE;
        }
        let key = OpArgs {
            shapes,
            strides,
            dtypes,
            concrete,
            call_stack,
        };
        if let Some(&i) = self.args_map.get(&key) {
            return i;
        }
        let i = self.args.len() as u32;
        self.args.push(key);
        self.args_map.insert(key, i);
        i
    }

    fn push(&mut self, ev: RawEvent) {
        self.meta.event_count += 1;
        let ph = text(&ev.ph);
        let cat = text(&ev.cat);
        let name = text(&ev.name);
        let wanted = (ph == "i" && name == "[memory]")
            || (ph == "X" && (cat == "cpu_op" || cat == "python_function"));
        if !wanted {
            return;
        }
        if self.records >= MAX_RECORDS {
            self.meta.dropped_events += 1;
            return;
        }
        self.records += 1;
        if ph == "i" && name == "[memory]" {
            let Some(args) = ev.args else { return };
            let (Some(ts), Some(bytes)) = (ev.ts.as_ref(), args.bytes) else {
                return;
            };
            let Some(ts_us) = ts.us() else { return };
            let rel_ns = ts.ns().unwrap_or(0);
            let ts_ns = self.meta.base_time_ns.unwrap_or(0).saturating_add(rel_ns);
            let Some(device) =
                self.device(args.device_type.unwrap_or(0), args.device_id.unwrap_or(-1))
            else {
                self.meta.dropped_device_events += 1;
                return;
            };
            let thread = self.thread(ev.pid, ev.tid);
            let mut flags = 0;
            if args.addr.is_some() {
                flags |= HAS_ADDR;
            }
            if args.total_allocated.is_some() {
                flags |= HAS_TOTAL;
            }
            if args.total_reserved.is_some() {
                flags |= HAS_RESERVED;
            }
            self.mems.push(MemRec {
                ts_us,
                ts_ns,
                bytes,
                addr: args.addr.unwrap_or(0),
                total_allocated: args.total_allocated.unwrap_or(0),
                total_reserved: args.total_reserved.unwrap_or(0),
                thread,
                device,
                flags,
            });
        } else if ph == "X" && (cat == "cpu_op" || cat == "python_function") {
            let Some(start) = ev.ts.as_ref().and_then(Num::us) else {
                return;
            };
            let dur = ev.dur.as_ref().and_then(Num::us).unwrap_or(0.0);
            let end = start + dur.max(0.0);
            let is_op = cat == "cpu_op";
            let name = self.strings.id(name);
            let thread = self.thread(ev.pid, ev.tid) as usize;
            let args = ev.args.unwrap_or_default();
            if is_op {
                self.first_op_us = Some(self.first_op_us.map_or(start, |f| f.min(start)));
                let args = self.op_args(&args);
                self.ops[thread].push(OpRec {
                    start,
                    end,
                    name,
                    args,
                });
            } else {
                self.pys[thread].push(PyRec {
                    start,
                    end,
                    id: args.python_id.unwrap_or(NO_ID),
                });
                if let Some(id) = args.python_id {
                    let call_from = args
                        .call_from
                        .as_ref()
                        .map_or(NONE, |c| self.strings.id(&c.0));
                    self.frames.push(FrameRec {
                        id,
                        parent: args.python_parent_id.unwrap_or(NO_ID),
                        name,
                        call_from,
                    });
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

// ---------------------------------------------------------------------------------------------
// Chunked input and structural scanning

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

/// Why the stream could not be read.
enum Fail {
    Io(std::io::Error),
    /// The input ended inside the trace.
    Eof,
    /// Malformed JSON (or not a trace) at this offset.
    Syntax(u64, String),
}

impl From<std::io::Error> for Fail {
    fn from(e: std::io::Error) -> Self {
        Fail::Io(e)
    }
}

enum Scan {
    Done(usize),
    More,
}

/// End of the string whose body starts at `j` (just after the opening quote).
#[inline]
fn string_end(b: &[u8], mut j: usize) -> Option<usize> {
    loop {
        let k = j + memchr::memchr2(b'"', b'\\', b.get(j..)?)?;
        if b[k] == b'"' {
            return Some(k + 1);
        }
        j = k + 2;
    }
}

/// Structural bytes outside strings.
const CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b'"' as usize] = 1;
    t[b'{' as usize] = 2;
    t[b'[' as usize] = 2;
    t[b'}' as usize] = 3;
    t[b']' as usize] = 3;
    t
};

/// End (exclusive) of the JSON value starting at `i` (not whitespace). Only the structure is
/// checked here; the value's own syntax is checked when it is deserialized.
fn scan_value(b: &[u8], i: usize, eof: bool) -> Scan {
    match b[i] {
        b'"' => match string_end(b, i + 1) {
            Some(e) => Scan::Done(e),
            None => Scan::More,
        },
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            while j < b.len() {
                match CLASS[b[j] as usize] {
                    0 => {}
                    1 => match string_end(b, j + 1) {
                        Some(e) => {
                            j = e;
                            continue;
                        }
                        None => return Scan::More,
                    },
                    2 => depth += 1,
                    _ => {
                        depth -= 1;
                        if depth == 0 {
                            return Scan::Done(j + 1);
                        }
                    }
                }
                j += 1;
            }
            Scan::More
        }
        _ => {
            let mut j = i;
            while j < b.len()
                && !matches!(
                    b[j],
                    b',' | b']' | b'}' | b' ' | b'\n' | b'\r' | b'\t' | b':'
                )
            {
                j += 1;
            }
            if j == b.len() && !eof {
                Scan::More
            } else {
                Scan::Done(j)
            }
        }
    }
}

struct Input<R> {
    r: R,
    buf: Vec<u8>,
    /// Valid bytes are `buf[..end]`; the next unread one is `buf[pos]`.
    pos: usize,
    end: usize,
    /// Offset in the stream of `buf[0]`.
    base: u64,
    eof: bool,
}

impl<R: Read> Input<R> {
    fn new(r: R) -> Self {
        Input {
            r,
            buf: Vec::new(),
            pos: 0,
            end: 0,
            base: 0,
            eof: false,
        }
    }

    fn offset(&self, i: usize) -> u64 {
        self.base + i as u64
    }

    /// Read more; keeps `buf[pos..end]` (moved to the front). False at the end of the input.
    fn fill(&mut self) -> Result<bool, Fail> {
        if self.eof {
            return Ok(false);
        }
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.end, 0);
            self.base += self.pos as u64;
            self.end -= self.pos;
            self.pos = 0;
        }
        if self.buf.len() - self.end < CHUNK / 2 {
            let want = (self.end + CHUNK).max(self.buf.len() * 2).max(CHUNK);
            self.buf.resize(want, 0);
        }
        let before = self.end;
        while self.end < self.buf.len() {
            match self.r.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => {
                    self.end += n;
                    if self.end - before >= CHUNK / 2 {
                        break;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Fail::Io(e)),
            }
        }
        Ok(self.end > before)
    }

    /// Skip whitespace; the next byte, or None at the end of the input.
    fn peek(&mut self) -> Result<Option<u8>, Fail> {
        loop {
            while self.pos < self.end {
                let b = self.buf[self.pos];
                if !matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                    return Ok(Some(b));
                }
                self.pos += 1;
            }
            if !self.fill()? {
                return Ok(None);
            }
        }
    }

    /// The next value (after whitespace) as `buf[start..end]`; does not consume it.
    fn value(&mut self) -> Result<(usize, usize), Fail> {
        if self.peek()?.is_none() {
            return Err(Fail::Eof);
        }
        loop {
            match scan_value(&self.buf[..self.end], self.pos, self.eof) {
                Scan::Done(e) => return Ok((self.pos, e)),
                Scan::More => {
                    if !self.fill()? {
                        return Err(Fail::Eof);
                    }
                }
            }
        }
    }

    fn syntax(&self, what: &str) -> Fail {
        Fail::Syntax(self.offset(self.pos), what.to_string())
    }

    /// Expect byte `c` (after whitespace) and consume it.
    fn expect(&mut self, c: u8, what: &str) -> Result<(), Fail> {
        match self.peek()? {
            Some(b) if b == c => {
                self.pos += 1;
                Ok(())
            }
            Some(_) => Err(self.syntax(what)),
            None => Err(Fail::Eof),
        }
    }
}

fn json_error(e: serde_json::Error, at: u64) -> Fail {
    if e.is_eof() {
        Fail::Eof
    } else {
        Fail::Syntax(at, e.to_string())
    }
}

/// Where the events array parser stands.
#[derive(Clone, Copy, PartialEq, Eq)]
enum At {
    /// Just after `[`: an event or `]`.
    Open,
    /// Just after `,`: an event.
    Comma,
    /// Just after an event: `,` or `]`.
    Event,
}

enum Step {
    /// The array ended.
    Done,
    /// The buffer ran out.
    More,
    /// Something the fast path does not decide: take one step on the byte path.
    Slow,
}

/// Events of the buffer's valid UTF-8 prefix, each deserialized in place (no separate scan):
/// returns the bytes consumed and why it stopped.
fn events_batch(
    text: &str,
    bad_utf8: bool,
    at: &mut At,
    c: &mut Collected,
) -> Result<(usize, Step), Fail> {
    let b = text.as_bytes();
    let mut i = 0;
    loop {
        while i < b.len() && matches!(b[i], b' ' | b'\n' | b'\r' | b'\t') {
            i += 1;
        }
        if i == b.len() {
            return Ok((i, if bad_utf8 { Step::Slow } else { Step::More }));
        }
        match (*at, b[i]) {
            (At::Open | At::Event, b']') => return Ok((i + 1, Step::Done)),
            (At::Event, b',') => {
                i += 1;
                *at = At::Comma;
                continue;
            }
            (At::Event, _) | (_, b']' | b',') => return Ok((i, Step::Slow)),
            _ => {}
        }
        let mut it = serde_json::Deserializer::from_str(&text[i..]).into_iter::<RawEvent>();
        match it.next() {
            Some(Ok(ev)) => {
                let n = it.byte_offset();
                if i + n == b.len() {
                    // A scalar cut by the buffer's end would parse: read on first.
                    return Ok((i, if bad_utf8 { Step::Slow } else { Step::More }));
                }
                c.push(ev);
                i += n;
                *at = At::Event;
            }
            Some(Err(e)) if e.is_eof() && !bad_utf8 => return Ok((i, Step::More)),
            _ => return Ok((i, Step::Slow)),
        }
    }
}

/// One step of the events array on the byte path (after the fast path stopped).
fn events_slow<R: Read>(inp: &mut Input<R>, at: &mut At, c: &mut Collected) -> Result<bool, Fail> {
    match (inp.peek()?, *at) {
        (None, _) => return Err(Fail::Eof),
        (Some(b']'), At::Open | At::Event) => {
            inp.pos += 1;
            return Ok(true);
        }
        (Some(b','), At::Event) => {
            inp.pos += 1;
            *at = At::Comma;
            return Ok(false);
        }
        (Some(_), At::Event) => return Err(inp.syntax("expected `,` or `]` in traceEvents")),
        (Some(b']' | b','), _) => return Err(inp.syntax("expected a trace event")),
        _ => {}
    }
    let (s, e) = inp.value()?;
    match serde_json::from_slice::<RawEvent>(&inp.buf[s..e]) {
        Ok(ev) => c.push(ev),
        // An event that is not an object (or has odd field types) is skipped, not fatal.
        Err(err) if err.is_data() => {}
        Err(err) => return Err(json_error(err, inp.offset(s))),
    }
    inp.pos = e;
    *at = At::Event;
    Ok(false)
}

/// The events array, from its `[`.
fn read_events<R: Read>(inp: &mut Input<R>, c: &mut Collected) -> Result<(), Fail> {
    inp.expect(b'[', "expected an array of trace events")?;
    let mut at = At::Open;
    loop {
        let (used, step) = {
            let bytes = &inp.buf[inp.pos..inp.end];
            let (text, bad) = match std::str::from_utf8(bytes) {
                Ok(t) => (t, false),
                Err(e) => (
                    std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or(""),
                    e.error_len().is_some(),
                ),
            };
            events_batch(text, bad, &mut at, c)?
        };
        inp.pos += used;
        let slow = match step {
            Step::Done => return Ok(()),
            Step::More => !inp.fill()?,
            Step::Slow => true,
        };
        if slow && events_slow(inp, &mut at, c)? {
            return Ok(());
        }
    }
}

/// The whole file: `{..., "traceEvents": [...]}` or a bare array. True when events were seen.
fn read_top<R: Read>(inp: &mut Input<R>, c: &mut Collected) -> Result<bool, Fail> {
    let mut saw = false;
    match inp.peek()? {
        None => return Err(Fail::Eof),
        Some(b'[') => {
            read_events(inp, c)?;
            saw = true;
        }
        Some(b'{') => {
            inp.pos += 1;
            let mut first = true;
            loop {
                match inp.peek()? {
                    None => return Err(Fail::Eof),
                    Some(b'}') => {
                        inp.pos += 1;
                        break;
                    }
                    Some(b',') if !first => inp.pos += 1,
                    Some(_) if !first => return Err(inp.syntax("expected `,` or `}`")),
                    Some(_) => {}
                }
                first = false;
                if inp.peek()? != Some(b'"') {
                    return Err(inp.syntax("expected a key"));
                }
                let (s, e) = inp.value()?;
                let key: String = serde_json::from_slice(&inp.buf[s..e])
                    .map_err(|err| json_error(err, inp.offset(s)))?;
                inp.pos = e;
                inp.expect(b':', "expected `:`")?;
                if key == "traceEvents" {
                    saw = true;
                    read_events(inp, c)?;
                    continue;
                }
                let (s, e) = inp.value()?;
                let v = &inp.buf[s..e];
                serde_json::from_slice::<IgnoredAny>(v)
                    .map_err(|err| json_error(err, inp.offset(s)))?;
                match key.as_str() {
                    "baseTimeNanoseconds" => {
                        let n: Option<Num> = serde_json::from_slice(v).unwrap_or(None);
                        c.meta.base_time_ns = n.and_then(|n| match n {
                            Num::F(f) => Some(f as i64),
                            Num::S(s) => s.trim().parse().ok(),
                        });
                    }
                    "with_stack" => c.meta.with_stack = flag(v),
                    "profile_memory" => c.meta.profile_memory = flag(v),
                    "record_shapes" => c.meta.record_shapes = flag(v),
                    _ => {}
                }
                inp.pos = e;
            }
        }
        Some(b'"') => return Err(inp.syntax("not a Chrome trace: a JSON string")),
        Some(_) => {
            return Err(inp
                .syntax("expected a Chrome trace object with traceEvents, or an array of events"));
        }
    }
    if inp.peek()?.is_some() {
        return Err(inp.syntax("trailing characters"));
    }
    Ok(saw)
}

fn flag(v: &[u8]) -> Option<bool> {
    serde_json::from_slice::<Flag>(v).ok()?.get()
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
        read_from(flate2::read::MultiGzDecoder::new(reader), path, true)
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
    let mut inp = Input::new(reader);
    let mut c = Collected::new();
    let res = read_top(&mut inp, &mut c);
    let where_ = if gz {
        " (offset in the decompressed stream)"
    } else {
        ""
    };
    let at = |offset: u64, msg: String| {
        EvidenceError::new(
            path,
            Location::Byte {
                offset,
                line: None,
                column: None,
            },
            msg,
        )
    };
    match res {
        Ok(true) => Ok(c),
        Ok(false) => Err(EvidenceError::at_byte(
            path,
            0,
            "not a Chrome trace: no traceEvents array",
        )),
        Err(Fail::Io(e)) => {
            let what = if gz {
                "corrupt gzip stream"
            } else {
                "read error"
            };
            Err(at(inp.offset(inp.end), format!("{what}{where_}: {e}")))
        }
        Err(Fail::Eof) => Err(at(
            inp.offset(inp.end),
            format!("truncated JSON{where_}: EOF while parsing the trace"),
        )),
        Err(Fail::Syntax(offset, msg)) => {
            Err(at(offset, format!("invalid trace JSON{where_}: {msg}")))
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Join

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

/// A memory series being built, down-sampled past [`SERIES_POINTS`] points.
struct SeriesBuild {
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
    fn new(device: Device, points: usize, first_op_ns: Option<i64>) -> Self {
        let bucket = if points <= SERIES_POINTS {
            1
        } else {
            points.div_ceil(SERIES_BUCKETS)
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

    fn push(&mut self, p: MemoryPoint) {
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

    fn finish(mut self) -> MemorySeries {
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
    // By id; the last event of an id wins (`partition_point` below).
    c.frames.sort_by_key(|f| f.id);
    let frames = &c.frames;
    let frame = |id: i64| -> Option<&FrameRec> {
        let n = frames.partition_point(|f| f.id <= id);
        n.checked_sub(1).map(|i| &frames[i]).filter(|f| f.id == id)
    };

    c.mems.sort_by(|a, b| a.ts_us.total_cmp(&b.ts_us));
    let mut per_device = vec![0usize; c.devices.len()];
    for m in &c.mems {
        per_device[m.device as usize] += 1;
    }

    let strs = &c.strings.strs;
    let mut tables = Tables {
        chain_map: FxHashMap::default(),
        chains: Vec::new(),
        stack_map: FxHashMap::default(),
        call_stack_map: FxHashMap::default(),
        stacks: Vec::new(),
    };
    let no_stack = tables.py_stack(&[], strs);
    let mut pending: FxHashMap<(u16, u64), usize> = FxHashMap::default();
    let mut series: Vec<SeriesBuild> = Vec::new();
    let mut series_of: Vec<Option<usize>> = vec![None; c.devices.len()];
    let mut allocs: Vec<AllocRec> = Vec::new();
    let mut chain: Vec<usize> = Vec::new();
    let mut names: Vec<u32> = Vec::new();
    let mut inner: Vec<usize> = Vec::new();
    let mut key: Vec<(u32, u32)> = Vec::new();
    for m in &c.mems {
        let device = &c.devices[m.device as usize].1;
        let total = (m.flags & HAS_TOTAL != 0).then_some(m.total_allocated);
        // Memory series, one per device, starting from the level before the first event.
        let si = match series_of[m.device as usize] {
            Some(i) => i,
            None => {
                let mut s = SeriesBuild::new(
                    device.clone(),
                    per_device[m.device as usize] + 1,
                    ev.first_op_time_ns,
                );
                s.push(MemoryPoint {
                    time_ns: m.ts_ns,
                    allocated: total.map(|t| (t - m.bytes).max(0) as u64),
                    reserved: None,
                    active: None,
                });
                series.push(s);
                series_of[m.device as usize] = Some(series.len() - 1);
                series.len() - 1
            }
        };
        let reserved = if device.kind == super::DeviceKind::Cpu || m.flags & HAS_RESERVED == 0 {
            None
        } else {
            Some(m.total_reserved.max(0) as u64)
        };
        series[si].push(MemoryPoint {
            time_ns: m.ts_ns,
            allocated: total.map(|t| t.max(0) as u64),
            reserved,
            active: None,
        });

        let addr = (m.flags & HAS_ADDR != 0).then_some(m.addr);
        if m.bytes < 0 {
            if let Some(addr) = addr
                && let Some(i) = pending.remove(&(m.device, addr))
            {
                allocs[i].free_ns = Some(m.ts_ns);
            }
            continue;
        }
        if m.bytes == 0 {
            continue;
        }
        let t = m.thread as usize;
        let ops = &c.ops[t];
        containing(ops, &op_parents[t], m.ts_us, op_se, false, &mut chain);
        let mut py_time = m.ts_us;
        let (mut chain_id, mut args) = (NONE, NONE);
        if let Some(&outer) = chain.last() {
            names.clear();
            names.extend(chain.iter().rev().map(|&i| ops[i].name));
            chain_id = tables.chain(&names);
            args = ops[outer].args;
            py_time = ops[outer].start;
        }
        let pys = &c.pys[t];
        containing(pys, &py_parents[t], py_time, py_se, true, &mut inner);
        let mut stack = no_stack;
        if let Some(&i) = inner.first() {
            key.clear();
            let mut cur = pys[i].id;
            let mut guard = 0usize;
            while cur != NO_ID {
                guard += 1;
                if guard > 10_000 {
                    break; // a parent cycle in a malformed trace
                }
                let Some(f) = frame(cur) else { break };
                key.push((f.name, f.call_from));
                cur = f.parent;
            }
            stack = tables.py_stack(&key, strs);
        }
        if tables.stacks[stack as usize].is_empty()
            && args != NONE
            && c.args[args as usize].call_stack != NONE
        {
            stack = tables.call_stack(c.args[args as usize].call_stack, strs);
        }
        if let Some(addr) = addr {
            pending.insert((m.device, addr), allocs.len());
        }
        allocs.push(AllocRec {
            bytes: m.bytes as u64,
            alloc_ns: m.ts_ns,
            free_ns: None,
            addr,
            total_after: total.map(|t| t.max(0) as u64),
            device: m.device,
            chain: chain_id,
            args,
            stack,
        });
    }
    ev.series = series.into_iter().map(SeriesBuild::finish).collect();

    let make = |r: &AllocRec, count: u64| -> Allocation {
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
    };
    if allocs.len() <= EXACT_ALLOCATIONS {
        ev.allocations = allocs.iter().map(|r| make(r, 1)).collect();
    } else {
        // Identical allocations as one, in order of first occurrence; the one that lived
        // longest stands for them (its lifetime is the group's longest).
        type Key = (u64, u16, u32, u32, u32);
        let mut index: FxHashMap<Key, usize> = FxHashMap::default();
        let mut groups: Vec<(AllocRec, u64)> = Vec::new();
        for r in &allocs {
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
        ev.notes.push(format!(
            "{} allocations aggregated into {} entries of identical size, op, inputs and stack",
            allocs.len(),
            groups.len()
        ));
        ev.allocations = groups.iter().map(|(r, n)| make(r, *n)).collect();
    }
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

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn escaped_strings_and_odd_events() {
        let text = r#"{"baseTimeNanoseconds": 1000, "traceEvents": [
            {"ph":"X","cat":"cpu_op","name":"aten::\u0074o","pid":1,"tid":1,"ts":10,"dur":5,
             "args":{"Input Dims":[[2,3],[],[1.5]],"Input type":["float",null,3]}},
            {"ph":"X","cat":"python_function","name":"m.py(3): f","pid":1,"tid":1,"ts":9,"dur":7,
             "args":{"Python id":1}},
            {"ph":"X","cat":"cpu_op","name":"bad","pid":1.5,"tid":1,"ts":10,"dur":5},
            {"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":12,"args":{"Bytes":8,"Total Allocated":8}}
        ], "with_stack": 1}"#;
        let ev = read_from(text.as_bytes(), Path::new("t.json"), false).expect("parses");
        let a = &ev.allocations[0];
        assert_eq!(a.op.as_deref(), Some("aten::to"));
        assert_eq!(a.input_shapes, vec![vec![2, 3], vec![], vec![]]);
        assert_eq!(a.input_dtypes, vec!["float", "", "3"]);
        assert_eq!(a.stack[0].function, "f");
        assert_eq!(a.alloc_time_ns, Some(13_000));
        assert_eq!(ev.first_op_time_ns, Some(11_000));
    }

    #[test]
    fn small_chunks_and_errors() {
        let text = br#"{"traceEvents": [{"ph":"M"}, 1 2]}"#;
        let err = read_from(&text[..], Path::new("t.json"), false).expect_err("bad");
        assert!(err.to_string().contains("invalid trace JSON"), "{err}");
        let text = br#"{"traceEvents": []} x"#;
        let err = read_from(&text[..], Path::new("t.json"), false).expect_err("bad");
        assert!(err.to_string().contains("trailing"), "{err}");
        let err = read_from(&b"\"x\""[..], Path::new("t.json"), false).expect_err("bad");
        assert!(err.to_string().contains("not a Chrome trace"), "{err}");
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
}
