# Modules whose repeat count is a parameter. `Affinity` and `Heads` are only ever called with
# `multiplicity=1` (pkg/model.py, and `Affinity` passing its own on): the repeat copies nothing
# larger, so nothing is reported there. `Confidence` is also called with 4.
import torch
from torch import nn


class Heads(nn.Module):
    def forward(self, z, feats, multiplicity=1):
        mask = feats["token_pad_mask"].repeat_interleave(multiplicity, 0).to(torch.bool)
        return z * mask[:, :, None, None]


class Affinity(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.heads = Heads()
        self.proj = nn.Linear(dim, dim)

    def forward(self, z, feats, multiplicity=1):
        z = z.repeat_interleave(multiplicity, 0)
        pair = feats["pair_mask"].repeat_interleave(multiplicity, 0).float()
        return self.heads(self.proj(z) * pair[..., None], feats, multiplicity=multiplicity)


class Confidence(nn.Module):
    def forward(self, z, feats, multiplicity=1):
        pair = feats["pair_mask"].repeat_interleave(multiplicity, 0).float()  # expect: OOM111
        return z * pair[..., None]
