# Helpers whose parameter `x` a caller's repeat is passed to (see model.py): `apply_masks` only
# gathers from `x` (gather checks its input's sizes only: a stride-0 view does as well as a copy);
# the others need the copy (returned, written in place, stored).
import torch

CACHE = []


def apply_masks(x, masks):
    all_x = []
    for m in masks:
        mask_keep = m.unsqueeze(-1).repeat(1, 1, x.size(-1))  # expect: OOM121 (a gather index)
        all_x += [torch.gather(x, dim=1, index=mask_keep)]
    return torch.cat(all_x, dim=0)


def passthrough(x, masks):
    return x


def written(x, masks):
    x.add_(1.0)
    return torch.gather(x, 1, masks)


def stored(x, masks):
    CACHE.append(x)
    return torch.gather(x, 1, masks)
