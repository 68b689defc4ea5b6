# Not a finding: a bool or integer buffer's dtype is its initializer's (`module.half()` and
# `.to(dtype)` cast only floating buffers), so `.bool()` / `.long()` of its broadcast view is a
# no-op. The look-alikes that fire are in OOM101/positive_buffer_dtype.py.
import torch
from torch import nn


class CausalMask(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("causal", torch.ones(n, n, dtype=torch.bool).tril(), persistent=False)
        self.register_buffer("band", torch.arange(n)[None, :] <= torch.arange(n)[:, None])
        self.register_buffer("ids", torch.zeros(n, n, dtype=torch.long))

    def forward(self, scores, batch_size, heads):
        m = self.causal.expand(batch_size, heads, -1, -1).bool()
        band = self.band.expand(batch_size, heads, -1, -1).bool()
        ids = self.ids.expand(batch_size, heads, -1, -1).long()
        return scores.masked_fill(m & band, 0.0), ids
