import torch

from pkg import swap
from pkg.swap import reorder_, swap_along_dim_, total_of


def permutations(base, batch_size, num_heads, seq_len, i, j):
    perm = base[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).contiguous()
    swap_along_dim_(perm, i, j, dim=3)
    return perm


def reordered(base, batch_size, num_heads, seq_len, i, j):
    perm = base[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).contiguous()
    swap.reorder_(perm, i, j)
    return perm


def read_only(base, batch_size, num_heads, seq_len):
    perm = base[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).contiguous()  # expect: OOM103
    return total_of(perm)


class Solver:
    def __init__(self, base, batch_size, num_heads, seq_len):
        self.perm = base[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).contiguous()

    def pivot_(self, i, j):
        reorder_(self.perm, i, j)
