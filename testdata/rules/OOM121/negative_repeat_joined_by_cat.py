# OOM121 negatives next to the joins of positive_repeat_joined_by_cat.py: the repeat tiles real
# data, or its copy is needed.
import torch


def tiles_real_data(x_feat, features, n):
    # dim 1 of features is not known to be 1: the repeat tiles real rows.
    tiled = features.repeat(1, n, 1)
    return torch.cat([x_feat, tiled], dim=-1)


def written_in_place_before_join(x_feat, global_feature):
    tiled = global_feature.unsqueeze(1).repeat(1, x_feat.shape[1], 1)
    tiled[:, 0] = 0.0
    return torch.cat([x_feat, tiled], dim=-1)


def also_returned(x_feat, global_feature):
    tiled = global_feature.unsqueeze(1).repeat(1, x_feat.shape[1], 1)
    return torch.cat([x_feat, tiled], dim=-1), tiled


def also_passed_on(x_feat, global_feature, head):
    tiled = global_feature.unsqueeze(1).repeat(1, x_feat.shape[1], 1)
    return torch.cat([x_feat, head(tiled)], dim=-1)


def join_size_argument(x_feat, global_feature):
    # The repeat is not an input of the join: only its size is read, then it is stored.
    tiled = global_feature.unsqueeze(1).repeat(1, x_feat.shape[1], 1)
    out = torch.cat([x_feat, x_feat], dim=tiled.dim() - 1)
    return out, tiled


def coordinate_grid(B, H, W):
    # Every input of the join is a copy: a table built from sizes alone (a two-channel
    # coordinate grid), not reported; the saving is one grid, not an activation.
    xx = torch.arange(0, W).view(1, 1, 1, -1).repeat(B, 1, H, 1)
    yy = torch.arange(0, H).view(1, 1, -1, 1).repeat(B, 1, 1, W)
    return torch.cat((xx, yy), 1).float()
