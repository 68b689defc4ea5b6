# Not OOM121: the look-alike of positive_joined_unit_dim.py. Joined along the last dim, the result's
# last dim is the sum of the elements' (1 + the other's), not 1: the repeat tiles a table, and
# `expand` could not make it.
import torch


def tiled_along_joined_dim(log_fgates, B, NH, S):
    cumsum = torch.cat(
        [torch.zeros((B, NH, 1, 1)), torch.cumsum(log_fgates, dim=-1)],
        dim=-1,
    )
    rep = cumsum.repeat(1, 1, 1, S + 1)
    return rep - rep.transpose(-2, -1)
