//! Where each number of an estimate came from, and how a total is worded: a figure stated by the
//! code, the user or the model's configuration is a fact; one that rests on a size guessed from a
//! name is printed as a guess, and one that rests on a name that says nothing is not printed.

use std::fmt;

use serde::Serialize;

use super::*;
use crate::fmt::Bytes;

/// Where the user gave a size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BindOrigin {
    /// `--dim NAME=VALUE`.
    Flag,
    /// `[tool.oomlint.dims]` of a configuration file (its name: `pyproject.toml`).
    Config(Arc<str>),
}

impl fmt::Display for BindOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BindOrigin::Flag => f.write_str("--dim"),
            BindOrigin::Config(file) => write!(f, "config {file}"),
        }
    }
}

/// Where one number of an estimate came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValueSource {
    /// Written in the code at the site.
    Literal,
    /// A literal constant of the module or class (`NUM_HEADS = 4`), or the literal default of the
    /// `__init__` parameter an attribute is set from (`num_register_tokens=4`): as written, and
    /// where.
    Constant {
        written: Arc<str>,
        file: Arc<str>,
        line: u32,
        kind: ConstantKind,
    },
    /// Bound by name by the user (`--dim`, `[tool.oomlint.dims]`).
    Bound(BindOrigin),
    /// The user's size for the role (`--dim batch=16`, `sequence = 32768` in the config).
    RoleBound(DimRole, BindOrigin),
    /// The role's default, guessed from the name.
    Assumed(DimRole),
    /// Stated by the model's configuration: the file it came from (`config.json`,
    /// `configuration_llama.py`).
    Config(Arc<str>),
    /// Measured by a profile: the evidence file and the site (`tiny_model.py:35`) whose measured
    /// shape or bytes gave it.
    Profile { evidence: Arc<str>, at: Arc<str> },
}

impl ValueSource {
    /// Whether the number has an origin the user can check (not a guess from a name). Exhaustive
    /// on purpose: a new source must say which it is.
    pub fn is_stated(&self) -> bool {
        match self {
            ValueSource::Literal
            | ValueSource::Constant { .. }
            | ValueSource::Bound(_)
            | ValueSource::RoleBound(..)
            | ValueSource::Config(_)
            | ValueSource::Profile { .. } => true,
            ValueSource::Assumed(_) => false,
        }
    }
}

/// What a total rests on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SizeBasis {
    /// Every number is stated: the total is a fact at those sizes.
    Stated,
    /// Some dim is guessed from a name that says what it is (batch, sequence, heads...): the
    /// total is a guess, printed as one.
    Guessed,
    /// Some dim's name says nothing (`C`, `topk`, a `-1` of a source of unknown shape): no total
    /// is printed.
    Unknown,
}

impl Estimate {
    /// What the total rests on (see [`SizeBasis`]).
    pub fn basis(&self) -> SizeBasis {
        let sources = || self.dims.iter().flat_map(|d| &d.sources);
        if sources().any(|(_, _, s)| *s == ValueSource::Assumed(DimRole::Unknown)) {
            SizeBasis::Unknown
        } else if sources().all(|(_, _, s)| s.is_stated()) {
            SizeBasis::Stated
        } else {
            SizeBasis::Guessed
        }
    }
}

#[derive(Serialize)]
struct JsonSize<'a> {
    /// The internal estimate (what `min-static-bytes` compares): a fact only when `basis` is
    /// `stated`.
    bytes: u128,
    elements: u128,
    itemsize: u64,
    dtype: Option<&'static str>,
    assumed: bool,
    basis: SizeBasis,
    /// `basis` is `stated` (`SizeFigure::basis_is_stated`): what the level decision reads.
    stated: bool,
    dims: Vec<JsonDim<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    capacity: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    exceeds_capacity: Option<bool>,
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
    /// `literal`, `constant`, `default` (an `__init__` parameter's), `bound`, `role-bound`, `assumed` or `config`.
    source: &'static str,
    /// Where the value came from, in the note's words (`constant NUM_HEADS = 4 at attn.py:3`,
    /// `--dim`, `config pyproject.toml`, `guessed batch`).
    basis: String,
    /// The role whose size was taken (`role-bound`, `assumed`).
    #[serde(skip_serializing_if = "Option::is_none")]
    role: Option<&'static str>,
    /// The file the value came from (`config`, `constant`, and a binding from a config file).
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<&'a str>,
    /// The constant's line (`constant`).
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u32>,
    /// The site whose measurement gave the value (`profile`: `tiny_model.py:35`).
    #[serde(skip_serializing_if = "Option::is_none")]
    at: Option<&'a str>,
}

fn json_source<'a>(name: &'a str, value: i64, source: &'a ValueSource) -> JsonSource<'a> {
    let (kind, role) = match source {
        ValueSource::Literal => ("literal", None),
        ValueSource::Constant {
            kind: ConstantKind::Literal,
            ..
        } => ("constant", None),
        ValueSource::Constant {
            kind: ConstantKind::ParameterDefault,
            ..
        } => ("default", None),
        ValueSource::Bound(_) => ("bound", None),
        ValueSource::RoleBound(r, _) => ("role-bound", Some(r.key())),
        ValueSource::Assumed(r) => ("assumed", Some(r.key())),
        ValueSource::Config(_) => ("config", None),
        ValueSource::Profile { .. } => ("profile", None),
    };
    let file = match source {
        ValueSource::Config(file)
        | ValueSource::Constant { file, .. }
        | ValueSource::Bound(BindOrigin::Config(file))
        | ValueSource::RoleBound(_, BindOrigin::Config(file))
        | ValueSource::Profile { evidence: file, .. } => Some(&**file),
        _ => None,
    };
    JsonSource {
        name,
        value,
        source: kind,
        basis: source.to_string(),
        role,
        file,
        line: match source {
            ValueSource::Constant { line, .. } => Some(*line),
            _ => None,
        },
        at: match source {
            ValueSource::Profile { at, .. } => Some(&**at),
            _ => None,
        },
    }
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
            basis: e.basis(),
            stated: self.basis_is_stated(),
            dims: e
                .dims
                .iter()
                .map(|d| JsonDim {
                    text: &d.text,
                    value: d.value,
                    sources: d
                        .sources
                        .iter()
                        .map(|(name, value, source)| json_source(name, *value, source))
                        .collect(),
                })
                .collect(),
            capacity: self.capacity,
            exceeds_capacity: self.exceeds_capacity,
        }
        .serialize(serializer)
    }
}

impl fmt::Display for ValueSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValueSource::Literal => f.write_str("literal"),
            ValueSource::Constant {
                written,
                file,
                line,
                kind: ConstantKind::Literal,
            } => write!(f, "constant {written} at {file}:{line}"),
            ValueSource::Constant {
                written,
                file,
                line,
                kind: ConstantKind::ParameterDefault,
            } => write!(f, "default {written} at {file}:{line}"),
            ValueSource::Bound(origin) => write!(f, "{origin}"),
            ValueSource::RoleBound(role, origin) => write!(f, "{} from {origin}", role.key()),
            ValueSource::Assumed(role) => write!(f, "guessed {}", role.key()),
            ValueSource::Config(file) => f.write_str(file),
            ValueSource::Profile { evidence, at } => write!(f, "from {evidence}, {at}"),
        }
    }
}

/// `batch_size=8 (guessed batch), num_heads=32 (--dim), q_len=kv_len=4096 (guessed sequence)`:
/// every named number once, equal values from the same source grouped.
pub fn provenance(estimate: &Estimate) -> String {
    provenance_without(estimate, &[])
}

/// [`provenance`] leaving out the names in `skip`.
fn provenance_without(estimate: &Estimate, skip: &[&str]) -> String {
    let mut groups: Vec<(Vec<String>, i64, String)> = Vec::new();
    for (name, value, source) in estimate.dims.iter().flat_map(|d| &d.sources) {
        if matches!(source, ValueSource::Literal) || skip.contains(&name.as_str()) {
            continue;
        }
        let source = source.to_string();
        if groups
            .iter()
            .any(|(names, _, _)| names.iter().any(|n| n == name))
        {
            continue;
        }
        match groups
            .iter_mut()
            .find(|(_, v, s)| *v == *value && *s == source)
        {
            Some(group) => group.0.push(name.clone()),
            None => groups.push((vec![name.clone()], *value, source)),
        }
    }
    groups
        .iter()
        .map(|(names, value, source)| format!("{}={value} ({source})", names.join("=")))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The names whose size nothing states and whose name says nothing (`C`, `attn_mask.shape[-1]`).
fn unknown_names(estimate: &Estimate) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for (name, _, source) in estimate.dims.iter().flat_map(|d| &d.sources) {
        if *source == ValueSource::Assumed(DimRole::Unknown) && !out.contains(&name.as_str()) {
            out.push(name);
        }
    }
    out
}

/// The size note of a figure, `dtype_text` being `1 B (bool)` or `4 B (assumed float32)`:
/// - stated: `size: [b, NUM_HEADS, q, k] x 1 B (bool) = 512.00 MiB at b=8 (--dim), NUM_HEADS=4
///   (constant NUM_HEADS = 4 at attn.py:3), q=k=4096 (config pyproject.toml)`;
/// - guessed: `... x 1 B (bool) = a guess of 4.00 GiB at b=8 (guessed batch), ...`;
/// - a name that says nothing: `... x 4 B (float32), no total: C, F_dim have no stated size
///   (bind with --dim or [tool.oomlint.dims]); batch=8 (guessed batch)`: the other numbers after.
pub fn figure_note(figure: &SizeFigure, dtype_text: &str) -> String {
    let e = &figure.estimate;
    let dims: Vec<&str> = e.dims.iter().map(|d| d.text.as_str()).collect();
    let head = format!("size: [{}] x {dtype_text}", dims.join(", "));
    let sources = provenance(e);
    let at = if sources.is_empty() {
        String::new()
    } else {
        format!(" at {sources}")
    };
    let total = Bytes::saturating(e.bytes);
    match e.basis() {
        SizeBasis::Stated => format!("{head} = {total}{at}"),
        SizeBasis::Guessed => format!("{head} = a guess of {total}{at}"),
        SizeBasis::Unknown => {
            let names = unknown_names(e);
            let verb = if names.len() == 1 { "has" } else { "have" };
            let mut note = format!(
                "{head}, no total: {} {verb} no stated size (bind with --dim or [tool.oomlint.dims])",
                names.join(", ")
            );
            let known = provenance_without(e, &names);
            if !known.is_empty() {
                note.push_str("; ");
                note.push_str(&known);
            }
            note
        }
    }
}
