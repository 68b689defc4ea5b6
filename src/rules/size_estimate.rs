//! A byte figure for every finding, with no flag needed: each symbolic dim gets a role from its
//! name (batch, sequence, heads, hidden, spatial, vocabulary), each role a documented default
//! size, and the estimate says where every number came from (a literal or a constant of the code,
//! bound by the user, stated by the model's configuration, or guessed from the role). Rules use it
//! to word the size note and to leave tiny sites out; a total that rests on a guess is said to be
//! one (`basis_is_stated`).

mod basis;
mod roles;

use std::collections::HashMap;
use std::sync::Arc;

use crate::analysis::{ConstantKind, DType, Dim, NamedConstant, Shape, Site, SymExpr};

pub use basis::{BindOrigin, SizeBasis, ValueSource, figure_note, provenance};
use roles::words;
pub use roles::{DimRole, role_of};

/// One dim of an estimate: as written, its value and where the value came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DimValue {
    pub text: String,
    pub value: i64,
    pub sources: Vec<(String, i64, ValueSource)>,
}

/// The estimated size of a full-size result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Estimate {
    pub dims: Vec<DimValue>,
    pub numel: u128,
    pub bytes: u128,
}

impl Estimate {
    /// Whether any number had to be assumed.
    pub fn assumes_anything(&self) -> bool {
        !self.basis_is_stated()
    }

    /// Whether every number has a stated origin (no dim guessed from its name).
    pub fn basis_is_stated(&self) -> bool {
        self.dims
            .iter()
            .flat_map(|d| &d.sources)
            .all(|(_, _, s)| s.is_stated())
    }
}

/// Sizes a model's configuration states (`config.json` beside the code, the keyword defaults of
/// a `configuration_*.py` class), by field name, with the file each came from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModelDims {
    pub values: HashMap<String, (i64, Arc<str>)>,
}

/// The configuration's sizes with attribute aliases added (`self.num_heads =
/// config.num_attention_heads` gives `num_heads` the value of `num_attention_heads`, from the same
/// file); a name the configuration states itself keeps its own value.
pub fn with_aliases(dims: Arc<ModelDims>, aliases: &[(String, String)]) -> Arc<ModelDims> {
    let usable: Vec<&(String, String)> = aliases
        .iter()
        .filter(|(alias, field)| {
            !dims.values.contains_key(alias) && dims.values.contains_key(field)
        })
        .collect();
    if usable.is_empty() {
        return dims;
    }
    let mut out = (*dims).clone();
    for (alias, field) in usable {
        if let Some(found) = dims.values.get(field) {
            out.values.insert(alias.clone(), found.clone());
        }
    }
    Arc::new(out)
}

/// Sizes the user gave: by name (`batch_size=3`) or by role (`batch=16`), with where each was
/// given; the literal constants the code states for the site's names; then those the model's
/// configuration states (`config.num_attention_heads`), then the role defaults. A name key beats
/// a constant, a constant beats a role key.
pub struct Bindings<'a> {
    pub by_name: &'a HashMap<String, i64>,
    /// Where each key of `by_name` was given; a key missing here was given by `--dim`.
    pub origins: &'a HashMap<String, BindOrigin>,
    pub model: &'a ModelDims,
    /// The module and class constants the site's shape names (`Site::constants`).
    pub constants: &'a [NamedConstant],
    /// The file the constants are in, as the report names it.
    pub file: &'a str,
    /// Sizes a profile measured (`--profile`): below the user's, above the configuration's.
    pub learned: &'a LearnedDims,
}

impl Bindings<'_> {
    fn origin(&self, key: &str) -> BindOrigin {
        self.origins.get(key).cloned().unwrap_or(BindOrigin::Flag)
    }

    fn value_of(&self, name: &str, siblings: &[&str]) -> (i64, ValueSource) {
        let last = name.rsplit('.').next().unwrap_or(name);
        for key in [name, last] {
            if let Some(v) = self.by_name.get(key) {
                return (*v, ValueSource::Bound(self.origin(key)));
            }
        }
        if let Some(c) = self.constants.iter().find(|c| c.name == last) {
            let file = self.file.rsplit(['/', '\\']).next().unwrap_or(self.file);
            return (
                c.value,
                ValueSource::Constant {
                    written: Arc::from(c.written.as_str()),
                    file: Arc::from(file),
                    line: c.line,
                    kind: c.kind,
                },
            );
        }
        let role = role_of(name, siblings);
        if let Some(v) = self.by_name.get(role.key()) {
            return (*v, ValueSource::RoleBound(role, self.origin(role.key())));
        }
        if let Some(found) = self.learned.get(name, last) {
            return (found.value, found.source());
        }
        match self.model.values.get(last) {
            // A configuration's size is a size: a 0 or negative default is a placeholder.
            Some((v, file)) if *v > 0 => (*v, ValueSource::Config(file.clone())),
            _ => (role.default_size(), ValueSource::Assumed(role)),
        }
    }
}

/// Names a symbolic expression reads, in order, without repeats.
fn names(expr: &SymExpr, out: &mut Vec<String>) {
    match expr {
        SymExpr::Num(_) => {}
        SymExpr::Var(n) | SymExpr::Opaque(n) => {
            if !out.contains(n) {
                out.push(n.clone());
            }
        }
        SymExpr::Mul(a, b) | SymExpr::Add(a, b) | SymExpr::Sub(a, b) | SymExpr::FloorDiv(a, b) => {
            names(a, out);
            names(b, out);
        }
    }
}

/// Estimates the bytes of `shape` at `itemsize` bytes per element: every name takes its bound
/// value, else its role's, and a `*` dim the unknown-extent default. `None` only when the
/// arithmetic does not work out (a negative or overflowing size).
pub fn estimate(shape: &Shape, itemsize: u64, bindings: &Bindings) -> Option<Estimate> {
    let shape_names: Vec<String> = shape
        .0
        .iter()
        .filter_map(|d| match d {
            Dim::Size(SymExpr::Var(n)) => Some(n.clone()),
            _ => None,
        })
        .collect();
    let siblings: Vec<&str> = shape_names.iter().map(String::as_str).collect();
    let mut dims = Vec::with_capacity(shape.rank());
    let mut numel: u128 = 1;
    for dim in &shape.0 {
        let value = match dim {
            Dim::Unknown => {
                let key = DimRole::Unknown.key();
                let (value, source) = match bindings.by_name.get(key) {
                    Some(v) => (
                        *v,
                        ValueSource::RoleBound(DimRole::Unknown, bindings.origin(key)),
                    ),
                    None => (
                        DimRole::Unknown.default_size(),
                        ValueSource::Assumed(DimRole::Unknown),
                    ),
                };
                DimValue {
                    text: "*".to_string(),
                    value,
                    sources: vec![("*".to_string(), value, source)],
                }
            }
            Dim::Size(expr) => {
                let mut read = Vec::new();
                names(expr, &mut read);
                let sources: Vec<(String, i64, ValueSource)> = read
                    .iter()
                    .map(|n| {
                        let (v, s) = bindings.value_of(n, &siblings);
                        (n.clone(), v, s)
                    })
                    .collect();
                let lookup = |n: &str| {
                    sources
                        .iter()
                        .find(|(name, _, _)| name == n)
                        .map(|(_, v, _)| *v)
                };
                let value = expr.evaluate(&lookup)?;
                // `b_ // num_win` at assumed sizes can round to 0: a dim is at least 1.
                let value = if value < 1 && !sources.is_empty() {
                    1
                } else {
                    value
                };
                let sources = if sources.is_empty() {
                    vec![(expr.to_string(), value, ValueSource::Literal)]
                } else {
                    sources
                };
                DimValue {
                    text: expr.to_string(),
                    value,
                    sources,
                }
            }
        };
        numel = numel.checked_mul(u128::try_from(value.value).ok()?)?;
        dims.push(value);
    }
    let bytes = numel.checked_mul(u128::from(itemsize))?;
    Some(Estimate { dims, numel, bytes })
}

/// The figure a finding carries: the estimate of its full-size result and the element size it
/// was priced at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SizeFigure {
    pub estimate: Estimate,
    /// The result dtype, when the code makes it obvious.
    pub dtype: Option<DType>,
    /// Bytes per element: the dtype's, else [`ASSUMED_ITEMSIZE`].
    pub itemsize: u64,
    /// The bytes the allocation was compared with (`--capacity`, less the static memory a
    /// profile measured), when a capacity is set.
    pub capacity: Option<u64>,
    /// Whether the allocation at the bound sizes is more than `capacity`.
    pub exceeds_capacity: Option<bool>,
}

impl SizeFigure {
    /// Whether the total rests only on stated numbers: literals and constants of the code, the
    /// user's `--dim` or `[tool.oomlint.dims]`, the model's configuration; no dim guessed from
    /// its name. (The element size may still be assumed: `dtype` says.)
    pub fn basis_is_stated(&self) -> bool {
        self.estimate.basis_is_stated()
    }
}

/// Bytes per element when the dtype is not known: float32, the usual default dtype.
pub const ASSUMED_ITEMSIZE: u64 = 4;

/// Below this many bytes at the default sizes, a static finding is not reported
/// (`min-static-bytes`): 16 MiB is above every per-example vector, `[B]` timestep, `[B, S]` id
/// tensor and small matrix at realistic sizes, and far below any attention mask or
/// hidden-size activation.
pub const DEFAULT_MIN_STATIC_BYTES: u64 = 16 * 1024 * 1024;

/// The figure for a site's full-size result, when its rank is known.
pub fn site_figure(site: &Site, ctx: &super::RuleContext) -> Option<SizeFigure> {
    let shape = site
        .result_shape
        .as_ref()
        .or(site.enlarged.shape.as_ref())?;
    let dtype = site.result_dtype;
    let itemsize = dtype.map_or(ASSUMED_ITEMSIZE, DType::itemsize);
    let bindings = Bindings {
        by_name: ctx.dims,
        origins: ctx.dim_origins,
        model: ctx.model_dims,
        constants: &site.constants,
        file: ctx.file,
        learned: ctx.learned,
    };
    let mut estimate = estimate(shape, itemsize, &bindings)?;
    // A `-1` kept from a source of unknown size: name it after the source when that is a plain
    // name (`attn_mask.shape[-1]`), so the note says which size was assumed.
    let receiver = &site.enlarged.receiver_code;
    let plain = !receiver.is_empty()
        && receiver
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.');
    if plain {
        let rank = estimate.dims.len();
        for (i, dim) in estimate.dims.iter_mut().enumerate() {
            if dim.text == "*" {
                let text = format!("{receiver}.shape[-{}]", rank - i);
                dim.text.clone_from(&text);
                for source in &mut dim.sources {
                    source.0.clone_from(&text);
                }
            }
        }
        learned::bind_named_unknowns(&mut estimate, &bindings, itemsize)?;
    }
    Some(SizeFigure {
        estimate,
        dtype,
        itemsize,
        capacity: None,
        exceeds_capacity: None,
    })
}

mod classes;
mod learned;

pub use classes::{SMALL_FACTOR, index_over_one_extent, per_example_copy};
pub use learned::{LearnedDim, LearnedDims, SiteMeasure};

#[cfg(test)]
mod tests;
