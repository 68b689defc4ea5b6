# OOM103 negatives: a copy of a broadcast view that a function of the project writes in place is
# needed (writing the stride-0 view itself would raise). The function's summary says which of its
# parameters it writes: a subscript store (also through a tuple of targets or a view of the
# parameter), an in-place tensor method, an `out=` keyword, or passing the parameter on to a
# function that writes it. A copy stored on `self` that a method of the class hands to such a
# function is written too. Select OOM131 to see these copies.
import torch


def swap_along_dim_(values, i, j, dim):
    # The slices swap in place: the caller's tensor is written.
    ctx = tuple(slice(None) for _ in range(dim))
    values[ctx + (i,)], values[ctx + (j,)] = values[ctx + (j,)], values[ctx + (i,)]
    return values


def scatter_ones_(table, index):
    table.view(-1).index_fill_(0, index, 1)


def add_into(total, values):
    torch.add(total, values, out=total)


def shuffle_(values, i, j):
    # Passes its parameter on to a function that writes it.
    swap_along_dim_(values, i, j, dim=values.ndim - 1)


def permutations(base, batch_size, num_heads, seq_len, i, j):
    perm = base[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).contiguous()
    swap_along_dim_(perm, i, j, dim=3)
    return perm


def filled(base, batch_size, num_heads, seq_len, index):
    table = base[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).clone()
    scatter_ones_(table, index=index)
    return table


def summed(base, batch_size, num_heads, seq_len, values):
    total = base[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).contiguous()
    add_into(total, values)
    return total


def shuffled(base, batch_size, num_heads, seq_len, i, j):
    perm = base[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).contiguous()
    shuffle_(perm, i, j)
    return perm


class Solver:
    def __init__(self, base, batch_size, num_heads, seq_len):
        self.perm = base[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).contiguous()
        self.bounds = torch.zeros(batch_size, seq_len, 2)

    def pivot_(self, i, j):
        for t in (self.perm, self.bounds):
            swap_along_dim_(t, i, j, dim=3)
