import functools
from functools import partial

import torch
from torch import nn
from vendor_kernels import fused_rotate

from pkg.rotary import decay


def scale_mask(mask, value, scale=1.0):
    return mask.to(value.dtype) * scale  # expect: OOM101


class Mixer(nn.Module):
    def __init__(self, heads):
        super().__init__()
        self.heads = heads
        # Across files: `decay(q, rep, rate=0.1)` of pkg/rotary.py.
        self.rot = functools.partial(decay, rate=0.1)
        # Not a project function: not followed.
        self.fused = partial(fused_rotate, interleaved=True)

    def forward(self, q, mask, freqs):
        big = mask[:, None].expand(-1, self.heads, -1, -1)
        # Same file: `scale_mask(big, q, scale=0.5)`.
        apply = partial(scale_mask, scale=0.5)
        a = apply(big, q)
        rep = freqs.unsqueeze(1).repeat(1, self.heads, 1, 1)
        b = self.rot(q, rep)
        c = self.fused(q, rep)
        return a, b, c
