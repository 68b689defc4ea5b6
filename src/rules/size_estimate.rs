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

use crate::analysis::{DType, Dim, NamedConstant, Shape, Site, SymExpr};

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
                },
            );
        }
        let role = role_of(name, siblings);
        if let Some(v) = self.by_name.get(role.key()) {
            return (*v, ValueSource::RoleBound(role, self.origin(role.key())));
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
    let mut estimate = estimate(
        shape,
        itemsize,
        &Bindings {
            by_name: ctx.dims,
            origins: ctx.dim_origins,
            model: ctx.model_dims,
            constants: &site.constants,
            file: ctx.file,
        },
    )?;
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
    }
    Some(SizeFigure {
        estimate,
        dtype,
        itemsize,
    })
}

/// Whether a site is small by its class rather than by its figure: every size its enlargements
/// grow is batch-like (the batch, a count of copies per example such as images per prompt or
/// beams, a literal factor of at most [`SMALL_FACTOR`]), and the extent of what is copied is not
/// known (its rank is unknown, or a dim is a `*` kept from a source of unknown size). Such a copy
/// repeats one example's tensor a few times: in the labelled real-code set these are timesteps,
/// CFG latents, per-example embeddings, ids, boxes and affine matrices, never a realistically large
/// tensor. The figure cannot tell (its `*` dims are guesses), so the class decides. A batch-only
/// enlargement of a source whose dims are all named (`[1, 2, H, W]` noise to `[B, 2, H, W]`) is
/// judged by its figure instead. A factor the model's configuration states as at most
/// [`SMALL_FACTOR`] counts as that literal (`repeat(1, 1, self.config.tubelet_size, 1, 1)` with
/// `tubelet_size = 2`), and so does a starred list of batch dims (`expand(*batch_dims, -1, -1)`).
pub fn per_example_copy(site: &Site, model: &ModelDims) -> bool {
    let Some(growth) = &site.enlarged.growth else {
        return false;
    };
    let shape = site.result_shape.as_ref().or(site.enlarged.shape.as_ref());
    let extent_unknown = shape.is_none_or(|s| s.0.iter().any(|d| matches!(d, Dim::Unknown)));
    extent_unknown
        && growth
            .iter()
            .all(|g| batch_like(g, &site.enlarged.leading_sizes) || small_config_factor(g, model))
}

/// A size the model's configuration states as a small factor: `self.config.tubelet_size` with
/// `tubelet_size = 2` in the configuration class. Only a name that says nothing else: heads,
/// sequence lengths and the like grow a model's work even when few (`repeat(1, num_heads, 1, 1)`
/// of a mask with 8 heads is a real enlargement).
fn small_config_factor(expr: &SymExpr, model: &ModelDims) -> bool {
    let (SymExpr::Var(name) | SymExpr::Opaque(name)) = expr else {
        return false;
    };
    let last = name.rsplit('.').next().unwrap_or(name);
    role_of(name, &[]) == DimRole::Unknown
        && model
            .values
            .get(last)
            .is_some_and(|(v, _)| (1..=SMALL_FACTOR).contains(v))
}

/// Whether a site's result is an integer index over one extent: its dtype is an integer and every
/// dim but one is batch-like (the batch, a count of copies per example, a literal of at most
/// [`SMALL_FACTOR`] such as the 3 of `(t, h, w)` coordinates), the one left being a single
/// extent however it is spelled (`rows * columns`, `max_audio_tokens`). Position ids, patch
/// row/column ids and length masks made by `arange(n).expand(b, n)` are such tensors: one
/// integer per token of each example, never large next to the activations they index (issue 11:
/// "position-id index tensors over one extent are never reported"). Its figure can still pass the
/// threshold when the extent is a product of assumed sides, so the class decides.
pub fn index_over_one_extent(site: &Site) -> bool {
    let integer = matches!(
        site.result_dtype,
        Some(DType::UInt8 | DType::Int8 | DType::Int16 | DType::Int32 | DType::Int64)
    );
    let Some(shape) = site.result_shape.as_ref().or(site.enlarged.shape.as_ref()) else {
        return false;
    };
    let mut extents = 0;
    for dim in &shape.0 {
        match dim {
            Dim::Size(e) if batch_like(e, &site.enlarged.leading_sizes) => {}
            Dim::Size(_) => extents += 1,
            Dim::Unknown => return false,
        }
    }
    integer && extents <= 1
}

/// The largest literal factor an enlargement may grow by and still count as a few copies per
/// example (`torch.cat([latents] * 2)`, `repeat_interleave(2, dim=0)`).
pub const SMALL_FACTOR: i64 = 8;

/// `batch_size`, `x.shape[0]`, `len(prompts)`, `num_images_per_prompt`, `2`, `bsz * num_beams`,
/// `batch_size // x.shape[0]`; and a count whose name does not say what it counts, or says it
/// counts items (`num_labels`, `n`), that the code read off a tensor's leading size
/// (`leading_sizes`: `num_labels = unique_labels.shape[0]`). A name that says it is a length,
/// heads, a feature or a spatial size keeps that role wherever it was read from (`S =
/// x.shape[0]` of a sequence-first tensor is a length).
fn batch_like(expr: &SymExpr, leading_sizes: &[(String, String)]) -> bool {
    match expr {
        SymExpr::Num(n) => (0..=SMALL_FACTOR).contains(n),
        SymExpr::Var(name) | SymExpr::Opaque(name) => {
            let role = role_of(name, &[]);
            role == DimRole::Batch
                || copies_per_example(name)
                || (matches!(
                    role,
                    DimRole::Unknown | DimRole::Count | DimRole::Vocabulary
                ) && leading_sizes
                    .iter()
                    .any(|(n, size)| n == name && role_of(size, &[]) == DimRole::Batch))
        }
        SymExpr::Mul(a, b) => batch_like(a, leading_sizes) && batch_like(b, leading_sizes),
        SymExpr::FloorDiv(a, _) => batch_like(a, leading_sizes),
        // `num_cfg + 1`: a few more copies than a count of copies.
        SymExpr::Add(a, b) => match (&**a, &**b) {
            (SymExpr::Num(n), other) | (other, SymExpr::Num(n)) => {
                (0..=SMALL_FACTOR).contains(n) && batch_like(other, leading_sizes)
            }
            _ => false,
        },
        SymExpr::Sub(..) => false,
    }
}

/// A count of copies of each example: images, videos or audios per prompt, samples, beams,
/// generations, the branches of classifier-free guidance (`num_cfg`).
/// Not layers, experts or heads, which multiply a model's work rather than an example.
fn copies_per_example(name: &str) -> bool {
    let w = words(name);
    let has = |list: &[&str]| w.iter().any(|x| list.contains(&x.as_str()));
    has(&[
        "images",
        "videos",
        "audios",
        "cfg",
        "samples",
        "beams",
        "beam",
        "generations",
        "copies",
        "prompt",
        "prompts",
        "sequences",
    ]) && !has(&["layers", "experts", "heads", "tokens"])
}

#[cfg(test)]
mod tests;
