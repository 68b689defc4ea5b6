//! A small pickle decoder for plain data only (protocols 0-5).
//!
//! It accepts the opcodes that build dicts, lists, tuples, sets, ints, floats, strings, bytes,
//! bools and None, plus the memo (PUT/GET/MEMOIZE), FRAME and MARK. Any opcode that would import
//! or call code (GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ, EXT, PERSID, buffers) is
//! refused with an error that names it and its byte offset: nothing is ever executed.
//!
//! Memo references decode by **sharing** (`Rc`): a frame list referenced a thousand times is
//! stored once. A container stops being mutable once it is placed inside another one, and cannot
//! be placed inside itself, so the result is always a finite tree of bounded depth (no cycles).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::fmt;
use std::rc::Rc;

mod keys;

use keys::{INDEXED_DICT, KeyId, key_eq};

/// A decoded value. Containers are shared through `Rc`.
#[derive(Debug, Clone)]
pub enum Value {
    None,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(Rc<str>),
    Bytes(Rc<[u8]>),
    List(Rc<Container>),
    Tuple(Rc<Container>),
    Set(Rc<Container>),
    Dict(Rc<Container>),
}

/// A list, tuple, set (in `items`) or dict (in `pairs`).
#[derive(Debug, Default)]
pub struct Container {
    items: RefCell<Vec<Value>>,
    pairs: RefCell<Vec<(Value, Value)>>,
    /// Key -> position in `pairs`, built once a dict passes [`INDEXED_DICT`] keys, so that a dict
    /// of a million keys is not a quadratic number of comparisons.
    index: RefCell<HashMap<KeyId, usize>>,
    depth: Cell<u32>,
    frozen: Cell<bool>,
}

impl Container {
    /// The items of a list, tuple or set.
    pub fn items(&self) -> std::cell::Ref<'_, Vec<Value>> {
        self.items.borrow()
    }

    /// The entries of a dict, in insertion order.
    pub fn pairs(&self) -> std::cell::Ref<'_, Vec<(Value, Value)>> {
        self.pairs.borrow()
    }
}

impl Value {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_i128(&self) -> Option<i128> {
        match self {
            Value::Int(i) => Some(*i),
            Value::Bool(b) => Some(i128::from(*b)),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        self.as_i128().and_then(|i| i64::try_from(i).ok())
    }

    pub fn as_u64(&self) -> Option<u64> {
        self.as_i128().and_then(|i| u64::try_from(i).ok())
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Float(f) => Some(*f),
            Value::Int(i) => Some(*i as f64),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            Value::Int(i) => Some(*i != 0),
            _ => None,
        }
    }

    /// Items of a list or tuple (or set).
    pub fn as_seq(&self) -> Option<std::cell::Ref<'_, Vec<Value>>> {
        match self {
            Value::List(c) | Value::Tuple(c) | Value::Set(c) => Some(c.items()),
            _ => None,
        }
    }

    pub fn is_dict(&self) -> bool {
        matches!(self, Value::Dict(_))
    }

    /// Look up a string key in a dict (a clone of the value: containers are shared, not copied).
    pub fn get(&self, key: &str) -> Option<Value> {
        match self {
            Value::Dict(c) => c
                .pairs()
                .iter()
                .find(|(k, _)| k.as_str() == Some(key))
                .map(|(_, v)| v.clone()),
            _ => None,
        }
    }

    /// True when both are the same shared container (memo reference), for tests and caches.
    pub fn ptr_eq(&self, other: &Value) -> bool {
        match (self.container(), other.container()) {
            (Some(a), Some(b)) => Rc::ptr_eq(a, b),
            _ => false,
        }
    }

    fn container(&self) -> Option<&Rc<Container>> {
        match self {
            Value::List(c) | Value::Tuple(c) | Value::Set(c) | Value::Dict(c) => Some(c),
            _ => None,
        }
    }

    fn depth(&self) -> u32 {
        self.container().map_or(0, |c| c.depth.get())
    }
}

/// Why a pickle was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PickleError {
    /// Byte offset of the opcode (or of the end of input).
    pub offset: u64,
    pub message: String,
}

impl fmt::Display for PickleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at byte {})", self.message, self.offset)
    }
}

impl std::error::Error for PickleError {}

/// Bounds on what a pickle may build.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Maximum container nesting.
    pub max_depth: u32,
    /// Maximum input size in bytes.
    pub max_bytes: u64,
    /// Maximum number of values pushed in total.
    pub max_values: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 200,
            max_bytes: 8 << 30,
            max_values: 2_000_000_000,
        }
    }
}

enum Slot {
    Mark,
    V(Value),
}

struct Vm<'a> {
    data: &'a [u8],
    pos: usize,
    op_pos: usize,
    stack: Vec<Slot>,
    memo: HashMap<u64, Value>,
    limits: Limits,
    values: u64,
    /// MARKs on the stack.
    marks: usize,
}

fn opcode_name(op: u8) -> Option<&'static str> {
    Some(match op {
        b'c' => "GLOBAL",
        0x93 => "STACK_GLOBAL",
        b'R' => "REDUCE",
        b'b' => "BUILD",
        b'i' => "INST",
        b'o' => "OBJ",
        0x81 => "NEWOBJ",
        0x92 => "NEWOBJ_EX",
        0x82 => "EXT1",
        0x83 => "EXT2",
        0x84 => "EXT4",
        b'P' => "PERSID",
        b'Q' => "BINPERSID",
        0x97 => "NEXT_BUFFER",
        0x98 => "READONLY_BUFFER",
        _ => return None,
    })
}

/// Decode a data-only pickle.
pub fn decode(data: &[u8]) -> Result<Value, PickleError> {
    decode_with(data, Limits::default())
}

/// Decode with explicit limits.
pub fn decode_with(data: &[u8], limits: Limits) -> Result<Value, PickleError> {
    if data.len() as u64 > limits.max_bytes {
        return Err(PickleError {
            offset: 0,
            message: format!(
                "pickle of {} bytes exceeds the {} byte limit",
                data.len(),
                limits.max_bytes
            ),
        });
    }
    let mut vm = Vm {
        data,
        pos: 0,
        op_pos: 0,
        stack: Vec::new(),
        memo: HashMap::new(),
        limits,
        values: 0,
        marks: 0,
    };
    vm.run()
}

impl Vm<'_> {
    fn err<T>(&self, message: impl Into<String>) -> Result<T, PickleError> {
        Err(PickleError {
            offset: self.op_pos as u64,
            message: message.into(),
        })
    }

    fn take(&mut self, n: usize) -> Result<&[u8], PickleError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.data.len());
        match end {
            Some(end) => {
                let s = &self.data[self.pos..end];
                self.pos = end;
                Ok(s)
            }
            None => Err(PickleError {
                offset: self.data.len() as u64,
                message: "truncated pickle".into(),
            }),
        }
    }

    fn u8(&mut self) -> Result<u8, PickleError> {
        Ok(self.take(1)?[0])
    }

    fn le_u(&mut self, n: usize) -> Result<u64, PickleError> {
        let b = self.take(n)?;
        let mut v = 0u64;
        for (i, byte) in b.iter().enumerate() {
            v |= u64::from(*byte) << (8 * i);
        }
        Ok(v)
    }

    fn len(&mut self, n: usize) -> Result<usize, PickleError> {
        let v = self.le_u(n)?;
        usize::try_from(v)
            .ok()
            .filter(|&l| l <= self.data.len())
            .map_or_else(
                || self.err("truncated pickle: a length runs past the end"),
                Ok,
            )
    }

    fn line(&mut self) -> Result<&[u8], PickleError> {
        let rest = &self.data[self.pos..];
        match rest.iter().position(|&b| b == b'\n') {
            Some(i) => {
                let s = &self.data[self.pos..self.pos + i];
                self.pos += i + 1;
                Ok(s)
            }
            None => Err(PickleError {
                offset: self.data.len() as u64,
                message: "truncated pickle (no newline)".into(),
            }),
        }
    }

    fn line_str(&mut self) -> Result<String, PickleError> {
        let l = self.line()?;
        Ok(String::from_utf8_lossy(l).into_owned())
    }

    fn push(&mut self, v: Value) -> Result<(), PickleError> {
        self.values += 1;
        if self.values > self.limits.max_values {
            return self.err("pickle builds too many values");
        }
        self.stack.push(Slot::V(v));
        Ok(())
    }

    fn pop(&mut self) -> Result<Value, PickleError> {
        match self.stack.pop() {
            Some(Slot::V(v)) => Ok(v),
            Some(Slot::Mark) => self.err("unexpected MARK on the stack"),
            None => self.err("stack underflow"),
        }
    }

    fn top(&self) -> Result<&Value, PickleError> {
        match self.stack.last() {
            Some(Slot::V(v)) => Ok(v),
            _ => self.err("stack underflow"),
        }
    }

    fn pop_mark(&mut self) -> Result<Vec<Value>, PickleError> {
        let Some(mark) = self.stack.iter().rposition(|s| matches!(s, Slot::Mark)) else {
            return self.err("no MARK on the stack");
        };
        let items = self.stack.split_off(mark + 1);
        self.stack.pop();
        self.marks -= 1;
        Ok(items
            .into_iter()
            .filter_map(|s| if let Slot::V(v) = s { Some(v) } else { None })
            .collect())
    }

    /// Mark `child` as nested (frozen) and return the depth its parent needs.
    fn nest(&self, parent: Option<&Rc<Container>>, child: &Value) -> Result<u32, PickleError> {
        if let Some(c) = child.container() {
            if let Some(p) = parent
                && Rc::ptr_eq(p, c)
            {
                return self.err("pickle puts a container inside itself (a cycle); refusing");
            }
            c.frozen.set(true);
        }
        let d = child.depth() + 1;
        if d > self.limits.max_depth {
            return self.err(format!(
                "pickle nests deeper than {} levels",
                self.limits.max_depth
            ));
        }
        Ok(d)
    }

    fn new_container(&self, items: Vec<Value>) -> Result<Rc<Container>, PickleError> {
        let mut depth = 1;
        for it in &items {
            depth = depth.max(self.nest(None, it)?);
        }
        let c = Container {
            items: RefCell::new(items),
            depth: Cell::new(depth),
            ..Default::default()
        };
        Ok(Rc::new(c))
    }

    fn mutable_target(&self, below: usize) -> Result<Rc<Container>, PickleError> {
        let idx = self.stack.len().checked_sub(below + 1);
        let Some(Slot::V(v)) = idx.and_then(|i| self.stack.get(i)) else {
            return self.err("stack underflow");
        };
        let Some(c) = v.container() else {
            return self.err("append/setitem on a value that is not a container");
        };
        if c.frozen.get() {
            return self.err("pickle mutates a container after nesting it; refusing");
        }
        Ok(c.clone())
    }

    fn extend_items(&mut self, target_below: usize, items: Vec<Value>) -> Result<(), PickleError> {
        let c = self.mutable_target(target_below)?;
        let mut depth = c.depth.get();
        for it in &items {
            depth = depth.max(self.nest(Some(&c), it)?);
        }
        c.depth.set(depth);
        c.items.borrow_mut().extend(items);
        Ok(())
    }

    fn set_items(&mut self, target_below: usize, flat: Vec<Value>) -> Result<(), PickleError> {
        if !flat.len().is_multiple_of(2) {
            return self.err("SETITEMS with an odd number of values");
        }
        let c = self.mutable_target(target_below)?;
        let mut depth = c.depth.get();
        for it in &flat {
            depth = depth.max(self.nest(Some(&c), it)?);
        }
        c.depth.set(depth);
        let mut pairs = c.pairs.borrow_mut();
        let mut index = c.index.borrow_mut();
        let mut it = flat.into_iter();
        while let (Some(k), Some(v)) = (it.next(), it.next()) {
            // Later keys replace earlier ones, as in Python.
            let id = KeyId::of(&k);
            let existing = if pairs.len() < INDEXED_DICT {
                pairs.iter().position(|(ek, _)| key_eq(ek, &k))
            } else {
                if index.is_empty() {
                    for (i, (ek, _)) in pairs.iter().enumerate() {
                        if let Some(eid) = KeyId::of(ek) {
                            index.entry(eid).or_insert(i);
                        }
                    }
                }
                id.as_ref().and_then(|id| index.get(id).copied())
            };
            match existing {
                Some(i) => pairs[i].1 = v,
                None => {
                    if pairs.len() >= INDEXED_DICT
                        && let Some(id) = id
                    {
                        index.insert(id, pairs.len());
                    }
                    pairs.push((k, v));
                }
            }
        }
        Ok(())
    }

    fn memo_put(&mut self, idx: u64) -> Result<(), PickleError> {
        let v = self.top()?.clone();
        self.memo.insert(idx, v);
        Ok(())
    }

    fn memo_get(&mut self, idx: u64) -> Result<(), PickleError> {
        match self.memo.get(&idx) {
            Some(v) => {
                let v = v.clone();
                self.push(v)
            }
            None => self.err(format!("memo key {idx} not defined")),
        }
    }

    fn str_value(&self, b: &[u8]) -> Result<Value, PickleError> {
        match std::str::from_utf8(b) {
            Ok(s) => Ok(Value::Str(Rc::from(s))),
            Err(_) => self.err("string is not valid UTF-8"),
        }
    }

    fn run(&mut self) -> Result<Value, PickleError> {
        loop {
            self.op_pos = self.pos;
            let op = match self.data.get(self.pos) {
                Some(&b) => b,
                None => {
                    return Err(PickleError {
                        offset: self.pos as u64,
                        message: "truncated pickle (no STOP)".into(),
                    });
                }
            };
            self.pos += 1;
            if let Some(name) = opcode_name(op) {
                let what = match op {
                    b'c' => {
                        let module = self.line_str().unwrap_or_default();
                        let attr = self.line_str().unwrap_or_default();
                        format!("{name} {module}.{attr}")
                    }
                    0x93 => {
                        let n = self.stack.len();
                        let s = |i: usize| match self.stack.get(i) {
                            Some(Slot::V(Value::Str(s))) => s.to_string(),
                            _ => "?".to_string(),
                        };
                        if n >= 2 {
                            format!("{name} {}.{}", s(n - 2), s(n - 1))
                        } else {
                            name.to_string()
                        }
                    }
                    _ => name.to_string(),
                };
                return Err(PickleError {
                    offset: self.op_pos as u64,
                    message: format!(
                        "pickle calls code (opcode {what} at byte {}); refusing: snapshots are plain data",
                        self.op_pos
                    ),
                });
            }
            match op {
                0x80 => {
                    let proto = self.u8()?;
                    if proto > 5 {
                        return self.err(format!("unsupported pickle protocol {proto}"));
                    }
                }
                0x95 => {
                    self.take(8)?;
                }
                b'.' => {
                    let v = self.pop()?;
                    return Ok(v);
                }
                b'(' => {
                    // Marks nest with the containers they build, so more open marks than levels
                    // of nesting is not data (and each would cost a stack slot).
                    if self.marks > self.limits.max_depth as usize {
                        return self.err(format!(
                            "pickle opens more than {} MARKs at once",
                            self.limits.max_depth
                        ));
                    }
                    self.marks += 1;
                    self.stack.push(Slot::Mark);
                }
                b'0' => {
                    if let Some(Slot::Mark) = self.stack.pop() {
                        self.marks -= 1;
                    }
                }
                b'1' => {
                    self.pop_mark()?;
                }
                b'2' => {
                    let v = self.top()?.clone();
                    self.push(v)?;
                }
                b'N' => self.push(Value::None)?,
                0x88 => self.push(Value::Bool(true))?,
                0x89 => self.push(Value::Bool(false))?,
                b'I' => {
                    let l = self.line_str()?;
                    let v = match l.trim() {
                        "00" => Value::Bool(false),
                        "01" => Value::Bool(true),
                        t => match t.parse::<i128>() {
                            Ok(i) => Value::Int(i),
                            Err(_) => return self.err(format!("bad INT {t:?}")),
                        },
                    };
                    self.push(v)?;
                }
                b'J' => {
                    let v = self.le_u(4)? as u32 as i32;
                    self.push(Value::Int(i128::from(v)))?;
                }
                b'K' => {
                    let v = self.u8()?;
                    self.push(Value::Int(i128::from(v)))?;
                }
                b'M' => {
                    let v = self.le_u(2)?;
                    self.push(Value::Int(i128::from(v)))?;
                }
                b'L' => {
                    let l = self.line_str()?;
                    let t = l.trim().trim_end_matches('L');
                    match t.parse::<i128>() {
                        Ok(i) => self.push(Value::Int(i))?,
                        Err(_) => return self.err(format!("bad or too large LONG {t:?}")),
                    }
                }
                0x8a | 0x8b => {
                    let n = if op == 0x8a {
                        usize::from(self.u8()?)
                    } else {
                        self.len(4)?
                    };
                    if n > 16 {
                        return self.err(format!("integer of {n} bytes is too large"));
                    }
                    let b = self.take(n)?;
                    let mut v: i128 = 0;
                    for (i, byte) in b.iter().enumerate() {
                        v |= i128::from(*byte) << (8 * i);
                    }
                    if n > 0 && n < 16 && b[n - 1] & 0x80 != 0 {
                        v -= 1i128 << (8 * n);
                    }
                    self.push(Value::Int(v))?;
                }
                b'F' => {
                    let l = self.line_str()?;
                    match l.trim().parse::<f64>() {
                        Ok(f) => self.push(Value::Float(f))?,
                        Err(_) => return self.err(format!("bad FLOAT {l:?}")),
                    }
                }
                b'G' => {
                    let b = self.take(8)?;
                    let mut a = [0u8; 8];
                    a.copy_from_slice(b);
                    self.push(Value::Float(f64::from_be_bytes(a)))?;
                }
                b'X' | 0x8c | 0x8d => {
                    let n = match op {
                        b'X' => self.len(4)?,
                        0x8c => usize::from(self.u8()?),
                        _ => self.len(8)?,
                    };
                    let b = self.take(n)?;
                    let v = std::str::from_utf8(b).map(|s| Value::Str(Rc::from(s)));
                    match v {
                        Ok(v) => self.push(v)?,
                        Err(_) => return self.err("string is not valid UTF-8"),
                    }
                }
                b'V' => {
                    let l = self.line()?.to_vec();
                    let v = self.str_value(&l)?;
                    self.push(v)?;
                }
                b'T' | b'U' => {
                    let n = if op == b'T' {
                        self.len(4)?
                    } else {
                        usize::from(self.u8()?)
                    };
                    let b = self.take(n)?.to_vec();
                    let v = match std::str::from_utf8(&b) {
                        Ok(s) => Value::Str(Rc::from(s)),
                        Err(_) => Value::Bytes(Rc::from(b.as_slice())),
                    };
                    self.push(v)?;
                }
                b'S' => {
                    let l = self.line_str()?;
                    let t = l.trim();
                    let inner = t
                        .strip_prefix('\'')
                        .and_then(|s| s.strip_suffix('\''))
                        .or_else(|| t.strip_prefix('"').and_then(|s| s.strip_suffix('"')))
                        .unwrap_or(t);
                    self.push(Value::Str(Rc::from(inner)))?;
                }
                b'B' | b'C' | 0x8e | 0x96 => {
                    let n = match op {
                        b'B' => self.len(4)?,
                        b'C' => usize::from(self.u8()?),
                        _ => self.len(8)?,
                    };
                    let b = self.take(n)?;
                    let v = Value::Bytes(Rc::from(b));
                    self.push(v)?;
                }
                b']' => {
                    let c = self.new_container(Vec::new())?;
                    self.push(Value::List(c))?;
                }
                b')' => {
                    let c = self.new_container(Vec::new())?;
                    self.push(Value::Tuple(c))?;
                }
                b'}' => {
                    let c = self.new_container(Vec::new())?;
                    self.push(Value::Dict(c))?;
                }
                0x8f => {
                    let c = self.new_container(Vec::new())?;
                    self.push(Value::Set(c))?;
                }
                b'l' => {
                    let items = self.pop_mark()?;
                    let c = self.new_container(items)?;
                    self.push(Value::List(c))?;
                }
                b't' => {
                    let items = self.pop_mark()?;
                    let c = self.new_container(items)?;
                    self.push(Value::Tuple(c))?;
                }
                0x91 => {
                    let items = self.pop_mark()?;
                    let c = self.new_container(items)?;
                    self.push(Value::Set(c))?;
                }
                0x85..=0x87 => {
                    let n = usize::from(op - 0x84);
                    let mut items = Vec::with_capacity(n);
                    for _ in 0..n {
                        items.push(self.pop()?);
                    }
                    items.reverse();
                    let c = self.new_container(items)?;
                    self.push(Value::Tuple(c))?;
                }
                b'd' => {
                    let flat = self.pop_mark()?;
                    let c = self.new_container(Vec::new())?;
                    self.push(Value::Dict(c))?;
                    self.set_items(0, flat)?;
                }
                b'a' => {
                    let v = self.pop()?;
                    self.extend_items(0, vec![v])?;
                }
                b'e' | 0x90 => {
                    let items = self.pop_mark()?;
                    self.extend_items(0, items)?;
                }
                b's' => {
                    let v = self.pop()?;
                    let k = self.pop()?;
                    self.set_items(0, vec![k, v])?;
                }
                b'u' => {
                    let flat = self.pop_mark()?;
                    self.set_items(0, flat)?;
                }
                b'p' => {
                    let l = self.line_str()?;
                    match l.trim().parse::<u64>() {
                        Ok(i) => self.memo_put(i)?,
                        Err(_) => return self.err(format!("bad PUT index {l:?}")),
                    }
                }
                b'q' => {
                    let i = u64::from(self.u8()?);
                    self.memo_put(i)?;
                }
                b'r' => {
                    let i = self.le_u(4)?;
                    self.memo_put(i)?;
                }
                0x94 => {
                    let i = self.memo.len() as u64;
                    self.memo_put(i)?;
                }
                b'g' => {
                    let l = self.line_str()?;
                    match l.trim().parse::<u64>() {
                        Ok(i) => self.memo_get(i)?,
                        Err(_) => return self.err(format!("bad GET index {l:?}")),
                    }
                }
                b'h' => {
                    let i = u64::from(self.u8()?);
                    self.memo_get(i)?;
                }
                b'j' => {
                    let i = self.le_u(4)?;
                    self.memo_get(i)?;
                }
                other => {
                    return self.err(format!(
                        "unknown pickle opcode 0x{other:02x}; not a data pickle"
                    ));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
