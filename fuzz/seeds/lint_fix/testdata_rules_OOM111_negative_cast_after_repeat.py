# OOM111 negatives.
import torch


def cast_then_repeat(attention_mask, num_heads, dtype):
    return attention_mask.to(dtype).repeat(num_heads, 1)


def all_ones_repeat(attention_mask):
    mask = attention_mask.repeat(1, 1)
    return mask.float()


def cat_of_distinct_tensors(uncond_mask, cond_mask, dtype):
    mask = torch.cat([uncond_mask, cond_mask])
    return mask.to(dtype)


def noop_cast(seq_len, num_beams):
    ids = torch.arange(seq_len).repeat(num_beams, 1)
    return ids.long()


def reduced_first(mask, n):
    return mask.repeat(n, 1).sum(0).float()
