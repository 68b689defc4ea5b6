# The only calls of `Affinity` (through the attributes `__init__` stores it on, one of them
# rewrapped by `torch.compile`) and of the helper `stack_masks` pass 1; `Confidence` is called
# with 1 and with the number of diffusion samples, and `spread` with a parameter of a function
# no summary fixes.
import torch
from torch import nn

from pkg.heads import Affinity, Confidence


def stack_masks(masks, dim):
    return [m.repeat(1, dim, 1, 1).to(torch.float16) for m in masks]


def spread(x, n):
    return x.repeat(n, 1, 1).to(torch.bfloat16)  # expect: OOM111


class Model(nn.Module):
    def __init__(self, dim, compile_affinity=False):
        super().__init__()
        self.affinity = Affinity(dim)
        self.affinity_ensemble = Affinity(dim)
        if compile_affinity:
            self.affinity = torch.compile(self.affinity, dynamic=False)
        self.confidence = Confidence()

    def forward(self, z, feats, masks, samples):
        out = self.affinity(z, feats, multiplicity=1)
        out = out + self.affinity_ensemble(z, feats, 1)
        conf = self.confidence(z, feats, multiplicity=1) + self.confidence(z, feats, samples)
        return out, conf, stack_masks(masks, 1), spread(z, samples)
