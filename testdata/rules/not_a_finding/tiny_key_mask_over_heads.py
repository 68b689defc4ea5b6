# A `[batch, keys]` padding mask indexed to `[batch, 1, 1, keys]` and repeated over heads, with a
# size-1 query dim: `mask[:, None, None, :]` keeps the mask's two dims whole (its leading dim stays
# the leading one, as a batch does), so the result is `[mask.shape[0], heads, 1, mask.shape[1]]`, a
# few MiB at realistic sizes. The `1 - mask` or the cast of it is not worth a reorder. Not
# reported at the default `min-static-bytes`.
import torch


def extended_encoder_mask(encoder_attention_mask, num_heads, dtype):
    extended = (
        1.0 - encoder_attention_mask[:, None, None, :].repeat(1, num_heads, 1, 1)
    ) * torch.finfo(dtype).min
    return extended.to(dtype)


def key_padding_per_head(key_padding_mask, heads):
    mask = key_padding_mask[:, None, None, :].expand(-1, heads, 1, -1)
    return mask.float()
