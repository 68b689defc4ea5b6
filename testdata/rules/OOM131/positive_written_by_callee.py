# OOM131: a copy of a broadcast view that a function of the project writes in place, directly or
# as a `self` attribute a method hands to it: needed as written (see
# OOM103/negative_written_by_callee.py).
import torch


def swap_along_dim_(values, i, j, dim):
    ctx = tuple(slice(None) for _ in range(dim))
    values[ctx + (i,)], values[ctx + (j,)] = values[ctx + (j,)], values[ctx + (i,)]
    return values


def permutations(base, batch_size, num_heads, seq_len, i, j):
    perm = base[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).contiguous()  # expect: OOM131
    swap_along_dim_(perm, i, j, dim=3)
    return perm


class Solver:
    def __init__(self, base, batch_size, num_heads, seq_len):
        self.perm = base[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).contiguous()  # expect: OOM131

    def pivot_(self, i, j):
        swap_along_dim_(self.perm, i, j, dim=3)
