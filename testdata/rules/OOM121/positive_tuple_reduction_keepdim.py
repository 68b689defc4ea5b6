# OOM121: the values (or indices) of a `(values, indices)` reduction with `keepdim=True` keep the
# reduced dim at size 1 (torch documents both elements as the input's shape with `dim` of size 1),
# so a repeat of that dim is a stretch of one value that `expand` gives as a view: `torch.cat`
# reads its inputs through their strides (mmdet3d's VFE and DGCNN feature-aggregation layers).
import torch


def voxel_features(x, pointwise, voxel_count):
    aggregated = torch.max(x, dim=1, keepdim=True)[0]
    repeated = aggregated.repeat(1, voxel_count, 1)  # expect: OOM121
    return torch.cat([pointwise, repeated], dim=2)


def global_features(points, n):
    pooled = points.max(dim=-1, keepdim=True)[0]
    pooled = pooled.repeat(1, 1, n)  # expect: OOM121
    return torch.cat([pooled, points], dim=1)


def kth_rows(x, k, width):
    low = x.kthvalue(k, 1, keepdim=True)[0]
    return x - low.repeat(1, width)  # expect: OOM121
