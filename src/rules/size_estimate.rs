//! A byte figure for every finding, with no flag needed: each symbolic dim gets a role from its
//! name (batch, sequence, heads, hidden, spatial, vocabulary), each role a documented default
//! size, and the estimate says where every number came from (bound by the user, assumed from
//! the role, or a literal). Rules use it to word the size note and to leave tiny sites out.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use crate::analysis::{DType, Dim, Shape, Site, SymExpr};

/// What a dimension is, as far as its name tells.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DimRole {
    Batch,
    Sequence,
    Heads,
    Hidden,
    Spatial,
    /// A side of a grid of patches or merged tokens (`grid_h`, `llm_grid_w`, `grid_t`): an image
    /// or video cut into patches, not its pixels; also a side of a hidden-size feature map
    /// (`[batch, channels, height, 1]`), which is such a grid.
    Grid,
    /// A side of a VAE latent (`latent_h`, `latent_length`, `num_latent_frames`,
    /// `latents.shape[-1]`): an image, video or audio clip downsampled by its autoencoder.
    Latent,
    Vocabulary,
    /// A count of model parts or copies: layers, experts, groups, beams, images per prompt.
    Count,
    /// A name that says nothing, or a `-1` / `*` whose source size is not known.
    Unknown,
}

impl DimRole {
    /// Every role, in the order the documentation lists them.
    pub const ALL: [DimRole; 10] = [
        DimRole::Batch,
        DimRole::Sequence,
        DimRole::Heads,
        DimRole::Hidden,
        DimRole::Spatial,
        DimRole::Grid,
        DimRole::Latent,
        DimRole::Vocabulary,
        DimRole::Count,
        DimRole::Unknown,
    ];

    /// The key that overrides this role's size in `[tool.oomlint.dims]` and `--dim`.
    pub fn key(self) -> &'static str {
        match self {
            DimRole::Batch => "batch",
            DimRole::Sequence => "sequence",
            DimRole::Heads => "heads",
            DimRole::Hidden => "hidden",
            DimRole::Spatial => "spatial",
            DimRole::Grid => "grid",
            DimRole::Latent => "latent",
            DimRole::Vocabulary => "vocabulary",
            DimRole::Count => "count",
            DimRole::Unknown => "unknown",
        }
    }

    /// The size assumed when nothing binds the dim: a realistic training setting for a
    /// transformer (batch 8, 4k tokens, 32 heads, 4k hidden) and for vision (512 px sides, 64
    /// patches a side: a 1024 px image at 16 px patches; a latent side is 64 too, a 512 px side
    /// downsampled 8 times by a VAE); 32 layers/experts/copies. A dim the code does not name (a `-1` kept from a source of unknown
    /// shape, an opaque expression) is 512: in the labelled real-code set such dims are most
    /// often small per-item extents (points, boxes, grids, kernels), and the named dims around
    /// them carry the size that matters.
    pub fn default_size(self) -> i64 {
        match self {
            DimRole::Batch => 8,
            DimRole::Sequence => 4096,
            DimRole::Heads => 32,
            DimRole::Hidden => 4096,
            DimRole::Spatial => 512,
            DimRole::Grid => 64,
            DimRole::Latent => 64,
            DimRole::Vocabulary => 32000,
            DimRole::Count => 32,
            DimRole::Unknown => 512,
        }
    }

    pub fn from_key(key: &str) -> Option<DimRole> {
        DimRole::ALL.into_iter().find(|r| r.key() == key)
    }
}

/// Lowercase words of an identifier: `numAttentionHeads` and `num_attention_heads` both give
/// `num`, `attention`, `heads`. Only the last attribute counts (`self.config.n_heads`).
fn words(name: &str) -> Vec<String> {
    let last = name.rsplit('.').next().unwrap_or(name);
    let mut out = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in last.chars() {
        if c == '_' || !c.is_alphanumeric() {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// The role a dim's name suggests. `sibling_names` are the other dims of the same shape: a lone
/// `h` is heads in attention code (`b, h, q, k`) but a height next to a `w`, and a spatial side
/// next to a hidden-size dim (`[batch, channels, height, width]` of a model's features) is a side
/// of a feature grid (a patch grid), not of an image: a 512 x 512 map of 4096
/// features per example is not a tensor models make.
pub fn role_of(name: &str, sibling_names: &[&str]) -> DimRole {
    let role = role_by_name(name, sibling_names);
    let hidden_sibling = || {
        sibling_names
            .iter()
            .any(|s| *s != name && role_by_name(s, sibling_names) == DimRole::Hidden)
    };
    if role == DimRole::Spatial && hidden_sibling() {
        DimRole::Grid
    } else {
        role
    }
}

/// Whether a size read off a tensor (`latents.shape[-1]`, `image_latents.size(2)`) reads a latent.
fn reads_latent(compact: &str) -> bool {
    let base = match compact.find(".shape").or_else(|| compact.find(".size(")) {
        Some(cut) => &compact[..cut],
        None => return false,
    };
    words(base)
        .iter()
        .any(|w| matches!(w.as_str(), "latent" | "latents"))
}

/// The role of a dim by its own name (and, for a lone `h`, whether a `w` is beside it).
fn role_by_name(name: &str, sibling_names: &[&str]) -> DimRole {
    // A size read off a tensor (or the first of a shape tuple, `input_shape[0]`): its first dim
    // is the batch in model code, its last the feature (hidden) size; `len(xs)` counts the
    // examples.
    let compact: String = name.chars().filter(|c| !c.is_whitespace()).collect();
    if compact.ends_with("shape[0]") || compact.ends_with(".size(0)") || compact.starts_with("len(")
    {
        return DimRole::Batch;
    }
    if reads_latent(&compact) {
        return DimRole::Latent;
    }
    if compact.ends_with(".shape[-1]") || compact.ends_with(".size(-1)") {
        return DimRole::Hidden;
    }
    let w = words(name);
    let has = |list: &[&str]| w.iter().any(|x| list.contains(&x.as_str()));
    let whole = w.join("_");
    // Whole-name matches first: short names are ambiguous as words.
    match whole.as_str() {
        "b" | "bs" | "bsz" | "n_batch" | "nb" => return DimRole::Batch,
        "h" => {
            let spatial_sibling = sibling_names.iter().any(|s| {
                let sw = words(s).join("_");
                matches!(sw.as_str(), "w" | "width" | "wd")
            });
            return if spatial_sibling {
                DimRole::Spatial
            } else {
                DimRole::Heads
            };
        }
        "nh" | "n_head" | "n_heads" | "nheads" => return DimRole::Heads,
        "w" | "hw" | "wd" => return DimRole::Spatial,
        "d" | "c" | "e" | "dim" | "ch" | "d_k" | "d_v" | "d_model" | "n_embd" | "hs" => {
            return DimRole::Hidden;
        }
        "l" | "s" | "t" | "q" | "k" | "n" | "sl" | "ql" | "kl" | "n_ctx" | "seqlen" | "slen"
        | "qlen" | "klen" | "kvlen" | "alen" => {
            return DimRole::Sequence;
        }
        "v" => return DimRole::Vocabulary,
        _ => {}
    }
    if has(&["batch", "bsz", "bs"]) {
        DimRole::Batch
    } else if has(&["latent", "latents"])
        && !has(&["d", "dim", "dims", "hidden", "embed", "embedding"])
    {
        DimRole::Latent
    } else if has(&[
        "layers", "layer", "experts", "expert", "groups", "beams", "beam", "images", "videos",
        "audios", "samples", "repeats", "rep", "copies", "win", "windows", "top", "objs",
        "objects",
    ]) || (has(&["per"]) && has(&["prompt"]))
    {
        DimRole::Count
    } else if has(&["vocab", "vocabulary", "classes", "labels", "tokens_vocab"]) {
        DimRole::Vocabulary
    } else if has(&["head", "heads"]) && !has(&["dim", "size", "dims"]) {
        DimRole::Heads
    } else if has(&[
        "hidden",
        "dim",
        "embed",
        "embedding",
        "emb",
        "channels",
        "channel",
        "features",
        "feature",
        "model",
        "intermediate",
        "width_dim",
        "ffn",
        "inner",
    ]) {
        DimRole::Hidden
    } else if has(&[
        "seq",
        "len",
        "length",
        "tgt",
        "src",
        "query",
        "key",
        "kv",
        "q",
        "k",
        "tokens",
        "token",
        "time",
        "frames",
        "positions",
        "ctx",
        "context",
        "steps",
        "past",
        "total",
        "max",
    ]) {
        DimRole::Sequence
    } else if has(&["grid"]) {
        DimRole::Grid
    } else if has(&[
        "height", "width", "spatial", "pixels", "img", "image", "patch", "patches", "hw",
    ]) {
        DimRole::Spatial
    } else {
        DimRole::Unknown
    }
}

/// Where one number of an estimate came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValueSource {
    /// Written in the code.
    Literal,
    /// Bound by name by the user (`--dim`, `[tool.oomlint.dims]`).
    Bound,
    /// The user's size for the role (`--dim batch=16`).
    RoleBound(DimRole),
    /// The role's default.
    Assumed(DimRole),
    /// Stated by the model's configuration: the file it came from (`config.json`,
    /// `configuration_llama.py`).
    Config(Arc<str>),
}

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
        self.dims
            .iter()
            .flat_map(|d| &d.sources)
            .any(|(_, _, s)| matches!(s, ValueSource::Assumed(_)))
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

/// Sizes the user gave: by name (`batch_size=3`) or by role (`batch=16`); then those the model's
/// configuration states (`config.num_attention_heads`), then the role defaults.
pub struct Bindings<'a> {
    pub by_name: &'a HashMap<String, i64>,
    pub model: &'a ModelDims,
}

impl Bindings<'_> {
    fn value_of(&self, name: &str, siblings: &[&str]) -> (i64, ValueSource) {
        let last = name.rsplit('.').next().unwrap_or(name);
        if let Some(v) = self.by_name.get(name).or_else(|| self.by_name.get(last)) {
            return (*v, ValueSource::Bound);
        }
        let role = role_of(name, siblings);
        if let Some(v) = self.by_name.get(role.key()) {
            return (*v, ValueSource::RoleBound(role));
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
                let (value, source) = match bindings.by_name.get(DimRole::Unknown.key()) {
                    Some(v) => (*v, ValueSource::RoleBound(DimRole::Unknown)),
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
    /// The device's capacity in bytes, when known (`--capacity`, an OOM log).
    pub capacity: Option<u64>,
    /// Whether the allocation at the bound sizes exceeds `capacity` (`None`: not known).
    pub exceeds_capacity: Option<bool>,
}

impl SizeFigure {
    /// Whether every number of the size is stated rather than guessed: written in the code,
    /// bound by the user (by name or by role) or given by the model's configuration. A size
    /// assumed from a role's default is not. (Exhaustive on purpose: a new source must be
    /// classified here.)
    pub fn basis_is_stated(&self) -> bool {
        self.estimate
            .dims
            .iter()
            .flat_map(|d| &d.sources)
            .all(|(_, _, source)| match source {
                ValueSource::Literal
                | ValueSource::Bound
                | ValueSource::RoleBound(_)
                | ValueSource::Config(_) => true,
                ValueSource::Assumed(_) => false,
            })
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
pub fn site_figure(
    site: &Site,
    dims: &HashMap<String, i64>,
    model: &ModelDims,
) -> Option<SizeFigure> {
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
            by_name: dims,
            model,
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
    rebind_named_unknowns(&mut estimate, dims, itemsize);
    Some(SizeFigure {
        estimate,
        dtype,
        itemsize,
        capacity: None,
        exceeds_capacity: None,
    })
}

/// A `*` dim the note names after its source (`attn_mask.shape[-1]`) takes the size bound to
/// that name (`--dim attn_mask.shape[-1]=9536`): every number a note prints can be stated.
fn rebind_named_unknowns(estimate: &mut Estimate, dims: &HashMap<String, i64>, itemsize: u64) {
    let mut changed = false;
    for dim in &mut estimate.dims {
        if let Some(&value) = dims.get(&dim.text)
            && dim.sources.len() == 1
        {
            dim.value = value;
            dim.sources[0].1 = value;
            dim.sources[0].2 = ValueSource::Bound;
            changed = true;
        }
    }
    if changed {
        let numel = estimate
            .dims
            .iter()
            .try_fold(1u128, |n, d| n.checked_mul(u128::try_from(d.value).ok()?));
        if let Some(numel) = numel {
            estimate.numel = numel;
            estimate.bytes = numel.saturating_mul(u128::from(itemsize));
        }
    }
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

impl fmt::Display for ValueSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValueSource::Literal => f.write_str("literal"),
            ValueSource::Bound => f.write_str("bound"),
            ValueSource::RoleBound(role) => write!(f, "bound {}", role.key()),
            ValueSource::Assumed(role) => write!(f, "assumed {}", role.key()),
            ValueSource::Config(file) => f.write_str(file),
        }
    }
}

/// `batch_size=8 (assumed batch), num_heads=32 (bound), q_len=kv_len=4096 (assumed sequence)`:
/// every named number once, equal values from the same source grouped.
pub fn provenance(estimate: &Estimate) -> String {
    let mut groups: Vec<(Vec<String>, i64, String)> = Vec::new();
    for (name, value, source) in estimate.dims.iter().flat_map(|d| &d.sources) {
        if matches!(source, ValueSource::Literal) {
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

mod json;

#[cfg(test)]
mod tests;
