# Look-alikes of a key mask over heads that are large: the mask has a query dim of its own
# (`mask[:, None, :, :]` of a `[batch, queries, keys]` mask), or is expanded to the queries, so the
# result is an attention-sized `[batch, heads, queries, keys]` tensor.
import torch


def extended_3d_mask(attention_mask, num_heads, dtype):
    extended = (
        1.0 - attention_mask[:, None, :, :].repeat(1, num_heads, 1, 1)  # expect: OOM113
    ) * torch.finfo(dtype).min
    return extended.to(dtype)


def key_mask_to_queries(key_padding_mask, heads, q_len):
    mask = key_padding_mask[:, None, None, :].repeat(1, heads, q_len, 1)
    return ~mask  # expect: OOM113
