# OOM121 negatives next to positive_unit_dims_from_torch.py: the dims torch leaves are not 1, or
# the repeat is of another dim.
import torch
import torch.nn as nn
import torch.nn.functional as F


class GridHead(nn.Module):
    def __init__(self):
        super().__init__()
        # A 7x7 output: the repeat tiles real cells.
        self.pool = nn.AdaptiveAvgPool2d(7)

    def forward(self, x, h, w):
        x = self.pool(x)
        return x * x.repeat(1, 1, h, w)


def no_keepdim(x, num_frames):
    # Without keepdim the reduced dim is gone: dim 2 of the mean is another dim of `x`.
    mean = x.mean(dim=1).repeat(1, 1, num_frames)
    return torch.cat([x, mean], dim=1)


def other_dim_repeated(x, n):
    # The kept dim is 2; the repeat stretches dim 1, a real dim.
    mean = x.mean(dim=2, keepdim=True).repeat(1, n, 1)
    return x * mean


def max_values(x, num_frames):
    # `max` with a dim returns (values, indices); the tuple is not the tensor.
    peak = x.max(dim=2, keepdim=True)
    return torch.cat([x, peak[0].repeat(1, 1, num_frames)], dim=1)


def pooled_with_indices(x, h, w):
    pooled, idx = F.adaptive_max_pool2d(x, 1, return_indices=True)
    return x * pooled.repeat(1, 1, h, w), idx


def mode_keeps_dims(x, masked):
    # `mode()` reduces only dim -1 by default: its result keeps the other dims, so the repeat
    # may tile real values.
    value = x.mode().values
    return torch.where(masked, value.repeat(x.shape), x)


def reduced_along_dim(x, masked, n):
    # A `dim` (positional, after `norm`'s `p`) leaves the other dims: not 0-d.
    scale = x.norm(2, 1)
    return torch.where(masked, scale.repeat(n, 1), x)


def unknown_shape(specgrams, masked, mask_value):
    # A parameter of unknown shape: its repeat may tile real values.
    return torch.where(masked, mask_value.repeat(specgrams.shape), specgrams)
