# OOM101: the look-alikes of not_a_finding/false_alarms/own_buffer_dtype.py. A float buffer may
# be cast by `module.half()`, so its dtype is not taken from the initializer; a buffer of unknown
# dtype may be anything; an int64 buffer cast to bool is a real conversion.
import torch
from torch import nn


class CausalMask(nn.Module):
    def __init__(self, n, given):
        super().__init__()
        self.register_buffer("causal", torch.ones(n, n).tril())
        self.register_buffer("given", given)
        self.register_buffer("ids", torch.zeros(n, n, dtype=torch.long))

    def forward(self, scores, batch_size, heads):
        m = self.causal.expand(batch_size, heads, -1, -1).bool()  # expect: OOM101
        g = self.given.expand(batch_size, heads, -1, -1).bool()  # expect: OOM101
        i = self.ids.expand(batch_size, heads, -1, -1).bool()  # expect: OOM101
        return scores.masked_fill(m & g & i, 0.0)
