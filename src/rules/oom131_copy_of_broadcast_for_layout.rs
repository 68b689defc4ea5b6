//! OOM131 copy-of-broadcast-for-layout: a broadcast view copied because the code needs the copy
//! (a merge of the broadcast dims, an in-place write). Opt-in: the copy is needed as written, and
//! only a restructuring of the consumer avoids it.

use crate::analysis::{Shape, Site};

use super::describe::{Advice, enlarged_sink_finding};
use super::select::{contiguous_for_outside_code, copy_needed_for_layout, returned_clone};
use super::{Check, Finding, RuleContext, RuleInfo, RuleKind};

pub static RULE: RuleInfo = RuleInfo {
    code: "OOM131",
    name: "copy-of-broadcast-for-layout",
    kind: RuleKind::Static,
    default: false,
    doc: include_str!("../../lints/OOM131.md"),
    check: Check::Site(check),
    fix: None,
};

/// The layout the copy is made for, as far as the site tells.
enum Layout {
    /// Written in place later.
    InPlace,
    /// Handed to a consumer that reads only dense memory (a kernel launch, `torch.ops.*`,
    /// `assert x.is_contiguous()`).
    Dense,
    /// A `.contiguous()` handed straight to code the analysis cannot follow (another package, a
    /// compiled extension, a custom autograd Function).
    Outside,
    /// A `.clone()` the function returns: its callers get memory of their own.
    ReturnedClone,
    /// A convolution's weight: one kernel broadcast over the channels of a grouped conv.
    ConvWeight,
    /// Flattened to one dim: an index list for a flat gather.
    FlatIndex,
    /// A new dim 2 of a 4-d tensor merged into the heads: grouped-query attention's `repeat_kv`.
    KvRepeat,
    /// Any other merge: tiling for beams, in-batch pairs, a flat batch for a layer.
    Tiling,
}

pub fn check(site: &Site, ctx: &RuleContext) -> Option<Finding> {
    if !copy_needed_for_layout(site) {
        return None;
    }
    let op = &site.enlarged.op;
    let rank = site.enlarged.shape.as_ref().map(Shape::rank);
    let layout = if site.result_is_conv_weight && !site.merged_later {
        Layout::ConvWeight
    } else if !site.merged_later && !site.written_in_place && site.result_needs_dense {
        Layout::Dense
    } else if !site.merged_later && !site.written_in_place && contiguous_for_outside_code(site) {
        Layout::Outside
    } else if !site.merged_later && !site.written_in_place && returned_clone(site) {
        Layout::ReturnedClone
    } else if !site.merged_later {
        Layout::InPlace
    } else if site.merged_rank == Some(1) {
        Layout::FlatIndex
    } else if rank == Some(5) && site.merged_rank == Some(4) && inserts_dim_2(site) {
        Layout::KvRepeat
    } else {
        Layout::Tiling
    };
    let (tail, remedy) = match layout {
        Layout::InPlace => (
            "it is written in place later, so the copy is needed as written".to_string(),
            format!(
                "if every broadcast copy gets the same write, write `{}` before `{op}` and keep \
                 the view; otherwise the copy is needed",
                site.enlarged.receiver_code
            ),
        ),
        Layout::Dense => (
            "a kernel or a contiguity check reads it as dense memory, so the copy is needed as \
             written"
                .to_string(),
            format!(
                "pass `{}` and the broadcast sizes to the kernel and index the small tensor there \
                 (a stride of 0 on the broadcast dims), if the kernel can take them; otherwise \
                 the copy is needed",
                site.enlarged.receiver_code
            ),
        ),
        Layout::Outside => (
            "it is made contiguous for code outside the project (another package, a compiled \
             extension, a custom autograd Function), which may read it as dense memory, so the \
             copy is needed as written"
                .to_string(),
            format!(
                "if that code accepts strides, pass the view `{}.{op}(...)` without \
                 `.contiguous()`; otherwise the copy is needed",
                site.enlarged.receiver_code
            ),
        ),
        Layout::ReturnedClone => (
            "the function returns the clone, so its callers own memory they may write"
                .to_string(),
            format!(
                "if no caller writes the result, return the view `{}.{op}(...)` and let a caller \
                 that writes it clone it there",
                site.enlarged.receiver_code
            ),
        ),
        Layout::ConvWeight => (
            "a convolution reads it as a dense weight, so the copy is needed as written"
                .to_string(),
            "when every channel gets the same kernel, convolve once with the single kernel over \
             the input viewed as `[B * C, 1, ...]` and view the result back, instead of a grouped \
             convolution with the kernel copied per channel"
                .to_string(),
        ),
        Layout::FlatIndex => (
            "it is flattened into an index grid, so the copy is needed as written".to_string(),
            format!(
                "index `{}` with `i % n` (or `i // n`) of the flat positions instead of \
                 materializing the grid: position `i` of an `[m, n]` grid broadcast from `[1, n]` \
                 holds element `i % n`",
                site.enlarged.receiver_code
            ),
        ),
        Layout::KvRepeat => (
            "it merges the repeated dim into its neighbour, so the copy is needed as written"
                .to_string(),
            "for grouped-query attention, pass the un-repeated key/value to \
             `scaled_dot_product_attention(..., enable_gqa=True)`; with `matmul`, keep the \
             kv-head dim separate (`[b, kv, n_rep, s, d]`, the query viewed the same way) and let \
             `matmul` broadcast"
                .to_string(),
        ),
        Layout::Tiling => (
            "it merges the broadcast dim into another, so the copy is needed as written"
                .to_string(),
            "keep the broadcast dim separate and let the consumer broadcast (view the other \
             operand with the extra dim) where the consumer allows it; a layer that needs a flat \
             batch needs this copy"
                .to_string(),
        ),
    };
    Some(enlarged_sink_finding(
        &RULE,
        site,
        ctx,
        Advice {
            verb: "copy",
            remedy: Some(remedy),
            message_tail: Some(tail),
        },
    ))
}

/// The broadcast source gets a new dim at position 2 (`x[:, :, None]`, `x.unsqueeze(2)`), as
/// `repeat_kv` inserts the repeat dim after the kv heads.
fn inserts_dim_2(site: &Site) -> bool {
    let receiver = site.enlarged.receiver_code.replace(' ', "");
    receiver.contains("[:,:,None") || receiver.ends_with(".unsqueeze(2)")
}
