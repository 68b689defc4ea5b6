# OOM113 elementwise-after-repeat: a scalar op on the repeated copy writes it a second time.
import torch


def inverted_repeated_mask(attention_mask, num_heads):
    mask = attention_mask.repeat(num_heads, 1)
    return 1.0 - mask  # expect: OOM113


def negated_interleave(mask, num_heads):
    return ~mask.repeat_interleave(num_heads, dim=0)  # expect: OOM113


def scaled_tile(bias, seq_len):
    bias = bias.tile((1, seq_len, 1))
    return bias * 0.125  # expect: OOM113


def padding_from_cat(attention_mask, num_layers):
    mask = torch.cat([attention_mask] * num_layers)
    return mask == 0  # expect: OOM113


def where_repeated(keep, num_heads):
    keep = torch.repeat_interleave(keep, num_heads, dim=0)
    return torch.where(keep, 0.0, float("-inf"))  # expect: OOM113


def exp_repeated(slopes, seq_len):
    return slopes.repeat(1, seq_len).exp()  # expect: OOM113
