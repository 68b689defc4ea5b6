//! Compact records of the events the join needs, as the streaming pass keeps them: names,
//! argument lists and stacks are interned, so a record is a few dozen bytes whatever its text.

use super::super::json_stream::Sink;
use super::super::spans::NONE;
use super::super::{Device, parse_name_list, parse_shape_list};
use super::event::{Id, Num, RawArgs, RawEvent, TraceMeta, text};
use super::{MAX_DEVICES, MAX_RECORDS};
use rustc_hash::FxHashMap;
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;
use serde_json::value::RawValue;
use std::rc::Rc;

/// No `Python id` (or parent).
pub(super) const NO_ID: i64 = i64::MIN;

#[derive(Debug, Clone, Copy)]
pub(super) struct OpRec {
    pub(super) start: f64,
    pub(super) end: f64,
    pub(super) name: u32,
    /// Index in `Collected::args`, or NONE.
    pub(super) args: u32,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct PyRec {
    pub(super) start: f64,
    pub(super) end: f64,
    /// `Python id`, or NO_ID.
    pub(super) id: i64,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct FrameRec {
    pub(super) id: i64,
    pub(super) parent: i64,
    pub(super) name: u32,
    pub(super) call_from: u32,
}

pub(super) const HAS_ADDR: u8 = 1;
pub(super) const HAS_TOTAL: u8 = 2;
pub(super) const HAS_RESERVED: u8 = 4;

#[derive(Debug, Clone, Copy)]
pub(super) struct MemRec {
    pub(super) ts_us: f64,
    pub(super) ts_ns: i64,
    pub(super) bytes: i64,
    pub(super) addr: u64,
    pub(super) total_allocated: i64,
    pub(super) total_reserved: i64,
    pub(super) thread: u32,
    pub(super) device: u16,
    pub(super) flags: u8,
}

/// Interned argument lists of one op (indices in the collector's tables).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct OpArgs {
    pub(super) shapes: u32,
    pub(super) strides: u32,
    pub(super) dtypes: u32,
    pub(super) concrete: u32,
    pub(super) call_stack: u32,
}

#[derive(Default)]
pub(super) struct Interner {
    map: FxHashMap<Box<str>, u32>,
    pub(super) strs: Vec<Rc<str>>,
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
pub(super) struct RawTable<T> {
    map: FxHashMap<Box<str>, u32>,
    pub(super) items: Vec<T>,
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
pub(super) struct Collected {
    pub(super) meta: TraceMeta,
    threads: FxHashMap<(Id, Id), u32>,
    last_thread: Option<(Id, Id, u32)>,
    pub(super) mems: Vec<MemRec>,
    pub(super) ops: Vec<Vec<OpRec>>,
    pub(super) pys: Vec<Vec<PyRec>>,
    pub(super) frames: Vec<FrameRec>,
    pub(super) first_op_us: Option<f64>,
    pub(super) strings: Interner,
    pub(super) shapes: RawTable<Vec<Vec<i64>>>,
    pub(super) names: RawTable<Vec<String>>,
    args_map: FxHashMap<OpArgs, u32>,
    pub(super) args: Vec<OpArgs>,
    pub(super) devices: Vec<((i64, i64), Device)>,
    device_index: FxHashMap<(i64, i64), u16>,
    /// Records kept so far (see [`MAX_RECORDS`]).
    records: usize,
}

impl Collected {
    pub(super) fn new() -> Self {
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

/// `with_stack` and the like, written as 0/1 or as a bool.
fn flag(v: &[u8]) -> Option<bool> {
    serde_json::from_slice::<Flag>(v).ok()?.get()
}

impl Sink for Collected {
    type Event<'a> = RawEvent<'a>;
    const EVENTS_KEY: &'static str = "traceEvents";
    const FORMAT: &'static str = "a Chrome trace";

    fn event(&mut self, ev: RawEvent<'_>) {
        self.push(ev);
    }

    fn field(&mut self, key: &str, v: &[u8]) {
        match key {
            "baseTimeNanoseconds" => {
                let n: Option<Num> = serde_json::from_slice(v).unwrap_or(None);
                self.meta.base_time_ns = n.and_then(|n| match n {
                    Num::F(f) => Some(f as i64),
                    Num::S(s) => s.trim().parse().ok(),
                });
            }
            "with_stack" => self.meta.with_stack = flag(v),
            "profile_memory" => self.meta.profile_memory = flag(v),
            "record_shapes" => self.meta.record_shapes = flag(v),
            _ => {}
        }
    }
}
