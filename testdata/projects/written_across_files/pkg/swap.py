import torch


def swap_along_dim_(values, i, j, dim):
    # Swaps two slices in place: the caller's tensor is written.
    ctx = tuple(slice(None) for _ in range(dim))
    values[ctx + (i,)], values[ctx + (j,)] = values[ctx + (j,)], values[ctx + (i,)]
    return values


def reorder_(values, i, j):
    # Writes through the function it passes its parameter to.
    return swap_along_dim_(values.view(-1, values.shape[-1]), i, j, dim=1)


def total_of(values):
    return torch.sum(values, dim=-1)
