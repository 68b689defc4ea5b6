# Review repro (unseen code), class: a copy the code needs. A parameter is written in place by the
# optimizer: each head needs its own weights, a view would share one.
import torch
from torch import nn


class Readout(nn.Module):
    def __init__(self, heads, dim):
        super().__init__()
        w = torch.randn(1, dim) / dim ** 0.5
        self.w = nn.Parameter(w.expand(heads, dim).clone())

    def forward(self, x):
        return (x * self.w).sum(-1)
