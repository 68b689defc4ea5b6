import torch
from torch import nn


class Gate(nn.Module):
    def __init__(self, heads):
        super().__init__()
        self.heads = heads

    def forward(self, x, n):
        big = x[:, None].expand(-1, self.heads, -1, -1)
        # The receiver's class is known (`self`): a certain finding, as before.
        return self.gate_of(big)

    def gate_of(self, big):
        return big.float()  # expect: OOM101
