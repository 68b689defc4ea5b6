"""Correct code that looks like the patterns oomlint reports. Nothing in this file is a finding."""
import itertools

import numpy as np
import torch


def expand_mask_cheaply(mask, batch_size, num_heads, dtype):
    """Cast first, expand last."""
    return mask[:, None, None, :].to(dtype).expand(batch_size, num_heads, -1, -1)


def add_key_bias(scores, key_bias, num_heads, q_len):
    """scores is already [b, h, q, k]: the sum is full size anyway, the expand costs nothing."""
    bsz = scores.shape[0]
    return scores + key_bias[:, None, None, :].expand(bsz, num_heads, q_len, -1)


def tokens_per_row(mask, batch_size):
    """A reduction ends the enlargement before the cast."""
    return mask.expand(batch_size, -1).sum(-1).float()


def writable_mask(mask, batch_size):
    """The copy is needed: the result is written in place."""
    m = mask.expand(batch_size, -1).clone()
    m[:, 0] = True
    return m


def position_ids_for(seq_len, batch_size, device):
    """arange is int64 already: .long() is a no-op."""
    return torch.arange(seq_len, device=device).unsqueeze(0).expand(batch_size, -1).long()


def same_shape(x):
    """expand_as(self) does not enlarge."""
    return x.expand_as(x).float()


def bucket_table(buckets, n):
    """numpy, not torch."""
    return np.tile(buckets, (n, 1)) * 2


def pad_ids(pad_id, n):
    return list(itertools.repeat(pad_id, n))
