# An op with a small tensor operand whose full-size result is the function's output, returned as
# it is: doing the op before the expand would hand the caller a broadcast view instead of the
# tensor it gets now, which is not a reorder that keeps the result (the caller may write it). One
# safe fix of a returned `_expand_mask` chain leaves exactly this shape behind.
import torch


def expand_mask(mask, dtype, tgt_len):
    bsz, src_len = mask.size()
    inverted_mask = 1.0 - mask[:, None, None, :].to(dtype)
    return inverted_mask.expand(bsz, 1, tgt_len, src_len).masked_fill(
        inverted_mask.to(torch.bool), torch.finfo(dtype).min
    )


def causal_and_padding(mask, b, h, q, k):
    m = mask[:, None, :, :].expand(b, h, q, k)
    causal_mask = torch.tril(torch.ones(q, k, dtype=torch.bool))[None, None, :, :]
    return m & ~causal_mask


def scaled(expanded_attention_mask, inverted_mask, bsz, tgt_len, src_len):
    full = expanded_attention_mask.expand(bsz, 1, tgt_len, src_len) * inverted_mask
    return full
