import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, scale=2.0):
        return x.half() * scale  # expect: OOM101


class Pool(nn.Module):
    def forward(self, x):
        # Reduced first: nothing full-size is converted.
        return x.mean(1).float()
