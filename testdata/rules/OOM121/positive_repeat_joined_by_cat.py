# OOM121: a repeat of size-1 dims read only by a join. `torch.cat`/`torch.stack` read each input
# through its strides and copy it once into the result, so an `expand` view gives the same result
# without the repeat's own full-size copy (torch_points3d's PointNet segmentation head, mmaction's
# ACRN head).
import torch


def per_point_features(x_feat, global_feature):
    # global_feature [B, C] -> [B, N, C], only to be concatenated with the per-point features.
    tiled = global_feature.unsqueeze(1).repeat(1, x_feat.shape[1], 1)  # expect: OOM121
    return torch.cat([x_feat, tiled], dim=-1)


def per_point_inline(x_feat, global_feature):
    return torch.cat(
        [x_feat, global_feature.unsqueeze(1).repeat((1, x_feat.shape[1], 1))],  # expect: OOM121
        dim=-1,
    )


def stacked(x_feat, global_feature):
    tiled = global_feature.unsqueeze(1).repeat(1, x_feat.shape[1], 1)  # expect: OOM121
    return torch.stack((x_feat, tiled), dim=0)


def joined_and_broadcast(x_feat, global_feature, scale):
    # One reader joins, the other broadcasts: both read a view as they read the copy.
    tiled = global_feature.unsqueeze(1).repeat(1, x_feat.shape[1], 1)  # expect: OOM121
    return torch.cat([x_feat * tiled, tiled], dim=-1) * scale
