//! The role a dim's name gives it, and each role's documented default size.

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
pub(super) fn words(name: &str) -> Vec<String> {
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
        // Not `c`/`ch`: channels of audio (1-2) and images (3) as often as of features (in the
        // labelled set, 1 of 7 findings with a `c` dim was large).
        "d" | "e" | "dim" | "d_k" | "d_v" | "d_model" | "n_embd" | "hs" => {
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
        "layers", "layer", "experts", "expert", "groups", "group", "topk", "beams", "beam",
        "images", "videos", "audios", "samples", "repeats", "rep", "copies", "win", "windows",
        "top", "objs", "objects",
    ]) || (has(&["per"]) && has(&["prompt"]))
    {
        DimRole::Count
    } else if has(&["vocab", "vocabulary", "classes", "labels", "tokens_vocab"]) {
        DimRole::Vocabulary
    } else if has(&["head", "heads"]) && !has(&["dim", "size", "dims"]) {
        DimRole::Heads
    } else if letter_dim(&w) {
        // `F_dim`, `T_dim`: the size of an axis named by one letter (frames, time), not a
        // feature size.
        DimRole::Unknown
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
    } else if has(&["patches"]) && has(&["num", "n", "number"]) {
        // A count of patches (`num_patches`) is the number of patch tokens of an image, a
        // sequence, not a side of the patch grid.
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

/// `F_dim`, `t_dim`: one letter (other than `d`) and `dim`.
fn letter_dim(words: &[String]) -> bool {
    matches!(words, [letter, dim] if letter.len() == 1 && letter != "d" && dim == "dim")
}
