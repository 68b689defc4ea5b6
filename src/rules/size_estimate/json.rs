//! The `size` object of the JSON outputs: the figure, each dim's value and where it came from.

use serde::Serialize;

use super::{SizeFigure, ValueSource};
use crate::analysis::DType;

#[derive(Serialize)]
struct JsonSize<'a> {
    bytes: u128,
    elements: u128,
    itemsize: u64,
    dtype: Option<&'static str>,
    assumed: bool,
    /// Every number of the size is stated (`SizeFigure::basis_is_stated`).
    stated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    capacity: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    exceeds_capacity: Option<bool>,
    dims: Vec<JsonDim<'a>>,
}

#[derive(Serialize)]
struct JsonDim<'a> {
    text: &'a str,
    value: i64,
    sources: Vec<JsonSource<'a>>,
}

#[derive(Serialize)]
struct JsonSource<'a> {
    name: &'a str,
    value: i64,
    /// `literal`, `bound`, `role-bound`, `assumed` or `config`.
    source: &'static str,
    /// The role whose size was taken (`role-bound`, `assumed`).
    #[serde(skip_serializing_if = "Option::is_none")]
    role: Option<&'static str>,
    /// The configuration file the value came from (`config`).
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<&'a str>,
}

impl Serialize for SizeFigure {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let e = &self.estimate;
        JsonSize {
            bytes: e.bytes,
            elements: e.numel,
            itemsize: self.itemsize,
            dtype: self.dtype.map(DType::name),
            assumed: e.assumes_anything() || self.dtype.is_none(),
            stated: self.basis_is_stated(),
            capacity: self.capacity,
            exceeds_capacity: self.exceeds_capacity,
            dims: e
                .dims
                .iter()
                .map(|d| JsonDim {
                    text: &d.text,
                    value: d.value,
                    sources: d
                        .sources
                        .iter()
                        .map(|(name, value, source)| {
                            let (kind, role) = match source {
                                ValueSource::Literal => ("literal", None),
                                ValueSource::Bound => ("bound", None),
                                ValueSource::RoleBound(r) => ("role-bound", Some(r.key())),
                                ValueSource::Assumed(r) => ("assumed", Some(r.key())),
                                ValueSource::Config(_) => ("config", None),
                            };
                            JsonSource {
                                name,
                                value: *value,
                                source: kind,
                                role,
                                file: match source {
                                    ValueSource::Config(file) => Some(file),
                                    _ => None,
                                },
                            }
                        })
                        .collect(),
                })
                .collect(),
        }
        .serialize(serializer)
    }
}
