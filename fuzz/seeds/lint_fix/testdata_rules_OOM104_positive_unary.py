# OOM104 elementwise-after-expand: unary operators and unary methods.
import torch


def invert(attention_mask, b, h, q):
    m = attention_mask[:, None, None, :].expand(b, h, q, -1)
    return ~m  # expect: OOM104


def negate(alibi, b, q):
    bias = alibi[None, :, None, :].expand(b, -1, q, -1)
    return -bias  # expect: OOM104


def logical_not(mask, b, q):
    return mask[:, None, :].expand(b, q, -1).logical_not()  # expect: OOM104


def distance(rel_pos, b, h):
    d = rel_pos[None, None, :, :].expand(b, h, -1, -1)
    return d.abs()  # expect: OOM104


def neg_method(bias, b, q):
    return bias.unsqueeze(1).expand(b, q, -1).neg()  # expect: OOM104


def exp_decay(slopes, b, q, k):
    s = slopes[None, :, None, None].expand(b, -1, q, k)
    return s.exp()  # expect: OOM104


def sqrt_scale(var, b, q):
    v = var[:, None, :].expand(b, q, -1)
    return v.sqrt()  # expect: OOM104
