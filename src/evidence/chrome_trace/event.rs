//! The borrowed serde model of one Chrome trace event: strings and raw argument lists point into
//! the read buffer, so an event the reader does not keep costs no allocation.

use super::super::parse_us_decimal_to_ns;
use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;

/// A string borrowed from the input when it has no escapes.
pub(super) struct Str<'a>(pub(super) Cow<'a, str>);

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
pub(super) enum Id {
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
pub(super) enum Num<'a> {
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
    pub(super) fn us(&self) -> Option<f64> {
        match self {
            Num::F(v) => Some(*v),
            Num::S(s) => s.trim().parse().ok(),
        }
    }

    /// Exact nanoseconds where the text allows it.
    pub(super) fn ns(&self) -> Option<i64> {
        match self {
            Num::F(v) => v.is_finite().then(|| (v * 1000.0).round() as i64),
            Num::S(s) => parse_us_decimal_to_ns(s),
        }
    }
}

#[derive(Default, Deserialize)]
pub(super) struct RawArgs<'a> {
    #[serde(rename = "Bytes")]
    pub(super) bytes: Option<i64>,
    #[serde(rename = "Addr")]
    pub(super) addr: Option<u64>,
    #[serde(rename = "Total Allocated")]
    pub(super) total_allocated: Option<i64>,
    #[serde(rename = "Total Reserved")]
    pub(super) total_reserved: Option<i64>,
    #[serde(rename = "Device Type")]
    pub(super) device_type: Option<i64>,
    #[serde(rename = "Device Id")]
    pub(super) device_id: Option<i64>,
    #[serde(rename = "Input Dims", borrow)]
    pub(super) input_dims: Option<&'a RawValue>,
    #[serde(rename = "Input type", borrow)]
    pub(super) input_type: Option<&'a RawValue>,
    #[serde(rename = "Input Strides", borrow)]
    pub(super) input_strides: Option<&'a RawValue>,
    #[serde(rename = "Concrete Inputs", borrow)]
    pub(super) concrete_inputs: Option<&'a RawValue>,
    #[serde(rename = "Python id")]
    pub(super) python_id: Option<i64>,
    #[serde(rename = "Python parent id")]
    pub(super) python_parent_id: Option<i64>,
    #[serde(rename = "CallFrom", borrow)]
    pub(super) call_from: Option<Str<'a>>,
    #[serde(rename = "Call stack", borrow)]
    pub(super) call_stack: Option<Str<'a>>,
}

#[derive(Deserialize)]
pub(super) struct RawEvent<'a> {
    #[serde(borrow)]
    pub(super) ph: Option<Str<'a>>,
    #[serde(borrow)]
    pub(super) cat: Option<Str<'a>>,
    #[serde(borrow)]
    pub(super) name: Option<Str<'a>>,
    pub(super) pid: Option<Id>,
    pub(super) tid: Option<Id>,
    #[serde(borrow)]
    pub(super) ts: Option<Num<'a>>,
    #[serde(borrow)]
    pub(super) dur: Option<Num<'a>>,
    #[serde(default, borrow)]
    pub(super) args: Option<RawArgs<'a>>,
}

pub(super) fn text<'s>(s: &'s Option<Str<'_>>) -> &'s str {
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
    /// `[memory]` events of devices past [`MAX_DEVICES`](super::MAX_DEVICES), left out.
    pub dropped_device_events: u64,
    /// Events past [`MAX_RECORDS`](super::MAX_RECORDS) kept records, left out.
    pub dropped_events: u64,
}
