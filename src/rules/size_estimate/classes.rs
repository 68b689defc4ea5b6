//! Sites small by their class rather than by their figure: a few copies of one example's tensor,
//! an integer index over one extent.

use crate::analysis::{DType, Dim, Site, SymExpr};

use super::{DimRole, ModelDims, role_of, words};

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
pub(super) fn small_config_factor(expr: &SymExpr, model: &ModelDims) -> bool {
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
pub(super) fn batch_like(expr: &SymExpr, leading_sizes: &[(String, String)]) -> bool {
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
