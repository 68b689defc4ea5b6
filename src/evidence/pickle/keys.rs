//! Dict keys of the decoder: which keys are equal, and their hashable form for large dicts.

use std::rc::Rc;

use super::{Container, Value};

/// Dicts up to this many keys are searched linearly (most snapshot dicts have a handful).
pub(super) const INDEXED_DICT: usize = 16;

/// A dict key in hashable form; equal exactly when [`key_eq`] says so. Keys [`key_eq`] never
/// finds equal to another (floats) have none.
#[derive(Debug, PartialEq, Eq, Hash)]
pub(super) enum KeyId {
    None,
    Bool(bool),
    Int(i128),
    Str(Rc<str>),
    Bytes(Rc<[u8]>),
    Container(*const Container),
}

impl KeyId {
    pub(super) fn of(v: &Value) -> Option<KeyId> {
        Some(match v {
            Value::None => KeyId::None,
            Value::Bool(b) => KeyId::Bool(*b),
            Value::Int(i) => KeyId::Int(*i),
            Value::Str(s) => KeyId::Str(s.clone()),
            Value::Bytes(b) => KeyId::Bytes(b.clone()),
            Value::Float(_) => return None,
            Value::List(c) | Value::Tuple(c) | Value::Set(c) | Value::Dict(c) => {
                KeyId::Container(Rc::as_ptr(c))
            }
        })
    }
}

pub(super) fn key_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::None, Value::None) => true,
        (Value::Bytes(x), Value::Bytes(y)) => x == y,
        _ => a.ptr_eq(b),
    }
}
