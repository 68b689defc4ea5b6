# Helpers that build their result in a dtype their caller chooses (model.py). Nothing here is a
# finding by itself.
import torch


def stream_bias(seq_len, device, dtype):
    zero = torch.zeros((), dtype=dtype, device=device)
    return torch.cat([zero.expand(seq_len, seq_len), zero.expand(seq_len, seq_len)], dim=1)


def rebound_bias(seq_len, dtype):
    # The parameter is replaced: the result's dtype is no longer the argument's.
    dtype = pick_dtype(dtype)
    return torch.zeros(seq_len, seq_len, dtype=dtype)


def pick_dtype(dtype):
    return dtype
