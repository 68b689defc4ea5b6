# OOM113 negatives.
import torch


def invert_then_repeat(attention_mask, num_heads):
    return (1.0 - attention_mask).repeat(num_heads, 1)


def add_full_size(scores, bias, num_heads):
    # Not OOM113 (a tensor operand); an OOM121 "may": if dim 0 of `bias` is 1, expand would do.
    return scores + bias.repeat(num_heads, 1, 1)  # expect: OOM121


def all_ones(mask):
    return ~mask.repeat(1, 1)


def reduce_then_scale(mask, n):
    return mask.repeat(n, 1).sum(-1) * 0.5


def scaled_by_named_number(q_global, b, self_scale):
    # A name spelled like a number counts as one only against a broadcast view; a repeated copy
    # is full size already.
    # Not OOM113; an OOM121 "may" (`self_scale` may be a tensor of the full shape).
    q = q_global.repeat_interleave(b, dim=0)  # expect: OOM121
    return q * self_scale


def tril_along_interleaved_dim(g_values, depth):
    # `repeat_interleave` grew dim -2 alone (`axis=` is torch's alias of `dim`), and `tril`
    # computes along the last two dims: the mask differs per row, so it cannot come first.
    x = torch.repeat_interleave(torch.unsqueeze(g_values, dim=-2), depth, axis=-2)
    return torch.tril(x, diagonal=-1)
