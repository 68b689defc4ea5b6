# OOM113: look-alikes of negative_scan_of_flat_interleave.py that do reorder: a pointwise op on
# a flat `repeat_interleave` (each element is computed alone), and a scan along a dim that a
# `repeat_interleave(n, dim=0)` did not grow.
import torch


def exp_of_flat_repeat(seq_lens, n):
    return torch.exp(seq_lens.float().repeat_interleave(n))  # expect: OOM113


def scan_along_other_dim(hidden, n):
    return hidden.repeat_interleave(n, dim=0).cumsum(dim=1)  # expect: OOM113
