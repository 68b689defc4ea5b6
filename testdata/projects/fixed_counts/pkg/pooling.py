# Branches a fixed value decides: `pool` is only ever called with the default `mode="mean"` and
# no `weights` (pkg/model.py), so its "max" branch and its `weights is not None` branch never
# run, and what they would enlarge and convert is not reported. `pool_any` is also called with
# "max": its branch is reported.
import torch


def pool(x, mask, mode="mean", weights=None):
    full = mask.unsqueeze(-1).expand_as(x)
    if mode == "max":
        return (x - (1 - full) * 1e9).max(1).values
    if weights is not None:
        x = x * weights.unsqueeze(-1).expand_as(x).float()
    return (x * full).sum(1)


def pool_any(x, mask, mode="mean"):
    full = mask.unsqueeze(-1).expand_as(x)
    if mode == "max":
        return (x - (1 - full) * 1e9).max(1).values  # expect: OOM104
    return (x * full).sum(1)
