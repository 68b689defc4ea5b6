# OOM113: an operand that is a number set in `__init__` (`self.scale = 5000`) is a scalar: the op
# writes every repeated copy.
import torch
from torch import nn


class PE(nn.Module):
    def __init__(self, hidden_size):
        super().__init__()
        self.scale = 5000
        self.shift = -1
        self.pe = nn.Parameter(torch.randn(1, hidden_size, 4096))

    def forward(self, x):
        batch_size, num_heads, seq_len = x.shape
        return x + self.pe[:, :, :seq_len].repeat(batch_size, num_heads, 1) / self.scale  # expect: OOM113

    def shifted(self, x):
        batch_size, num_heads, seq_len = x.shape
        return x * (self.pe[:, :, :seq_len].repeat(batch_size, num_heads, 1) + self.shift)  # expect: OOM113
