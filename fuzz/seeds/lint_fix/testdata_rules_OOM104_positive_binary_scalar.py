# OOM104 elementwise-after-expand: binary ops and comparisons with a scalar operand.
import math

import torch


def invert_mask(attention_mask, bsz, tgt_len, src_len):
    mask = attention_mask[:, None, None, :].expand(bsz, 1, tgt_len, src_len)
    return 1.0 - mask  # expect: OOM104


def scale_bias(alibi, batch_size, q_len):
    bias = alibi[None, :, None, :].expand(batch_size, -1, q_len, -1)
    return bias * 0.5  # expect: OOM104


def threshold(probs, b, h, q):
    p = probs[:, None, None, :].expand(b, h, q, -1)
    return p < 0.5  # expect: OOM104


def padding_positions(attention_mask, b, h, q):
    m = attention_mask[:, None, None, :].expand(b, h, q, -1)
    return m == 0  # expect: OOM104


def min_value_bias(mask, dtype, b, q):
    m = mask[:, None, :].expand(b, q, -1)
    return m * torch.finfo(dtype).min  # expect: OOM104


def inf_bias(mask, b, q):
    m = mask[:, None, :].expand(b, q, -1)
    return m * -math.inf  # expect: OOM104


def neg_inf_fill(mask, b, q):
    m = mask[:, None, :].expand(b, q, -1)
    return m + float("-inf")  # expect: OOM104
