# OOM121: dims that torch makes 1. A reduction with `keepdim=True` keeps each reduced dim at size
# 1, and an adaptive pooling to an output size of 1 makes its pooled dims 1; a `repeat` of them
# stretches one value, which `expand` gives as a view (mmaction's ACRN head, ECAPA-style
# statistics pooling).
import torch
import torch.nn as nn
import torch.nn.functional as F


class ContextHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.max_pool = nn.AdaptiveMaxPool3d(1)

    def forward(self, x, feat, rois):
        x = self.max_pool(x)
        h, w = feat.shape[-2:]
        x_tile = x.repeat(1, 1, 1, h, w)  # expect: OOM121
        roi_feat = feat[rois[:, 0].long()]
        return torch.cat([x_tile, roi_feat], dim=1)


def statistics(x, num_frames):
    mean = torch.mean(x, dim=2, keepdim=True).repeat(1, 1, num_frames)  # expect: OOM121
    std = x.std(dim=-1, keepdim=True).repeat(1, 1, num_frames)  # expect: OOM121
    return torch.cat([x, mean, std], dim=1)


def gate(x, height, width):
    g = F.adaptive_avg_pool2d(x, (1, 1)).repeat(1, 1, height, width)  # expect: OOM121
    return x * g


def spec_augment(specgrams, masked):
    # A reduction over every dim is 0-d: each dim of its repeat is new and of size 1, whatever
    # the counts (torchaudio's SpecAugment mask value, read only by `torch.where`).
    mask_value = specgrams.mean()
    return torch.where(masked, mask_value.repeat(specgrams.shape), specgrams)  # expect: OOM121


def fill_norm(hidden_states):
    # `norm(2)`: `p` comes before `dim`, so this is still a reduction over every dim.
    scale = hidden_states.norm(2)
    return hidden_states * scale.repeat(*hidden_states.shape)  # expect: OOM121
