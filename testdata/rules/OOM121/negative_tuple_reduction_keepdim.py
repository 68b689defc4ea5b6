# OOM121 negatives next to positive_tuple_reduction_keepdim.py: without `keepdim` the reduced dim
# is gone (the repeat grows a dim of the input's size), the two-tensor `torch.max(a, b)` reduces
# nothing, a computed `dim` names no known dim, and the copy itself is written in place.
import torch


def no_keepdim(x, pointwise, voxel_count):
    aggregated = torch.max(x, dim=1)[0]
    repeated = aggregated.repeat(1, voxel_count, 1)
    return torch.cat([pointwise, repeated], dim=2)


def elementwise_max(a, b, pointwise, n):
    top = torch.max(a, b)
    return torch.cat([pointwise, top.repeat(1, n, 1)], dim=2)


def computed_dim(x, pointwise, n, d):
    pooled = x.max(dim=d, keepdim=True)[0]
    return torch.cat([pointwise, pooled.repeat(1, n, 1)], dim=2)


def written(x, n):
    pooled = x.max(dim=1, keepdim=True)[0]
    rep = pooled.repeat(1, n, 1)
    rep[:, 0] = 0
    return torch.cat([x, rep], dim=2)
