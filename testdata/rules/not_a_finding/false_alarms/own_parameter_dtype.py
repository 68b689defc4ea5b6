# Not a finding: a parameter's dtype is its initializer's. `nn.Parameter(torch.randn(...))` and
# `torch.zeros(..., dtype=torch.float32)` are float32, so `.float()` of their broadcast views is a
# no-op. The look-alike that fires (a bfloat16 parameter) is in OOM101/positive_parameter_dtype.py.
import torch
from torch import nn


class Decay(nn.Module):
    def __init__(self, num_heads, head_dim):
        super().__init__()
        self.decay = nn.Parameter(torch.randn(num_heads, head_dim))
        self.bias = nn.Parameter(torch.zeros(num_heads, head_dim, dtype=torch.float32))

    def forward(self, hidden_states, batch_size, seq_len):
        d = self.decay[None, :, None, :].expand(batch_size, -1, seq_len, -1).float()
        b = self.bias[None, :, None, :].expand(batch_size, -1, seq_len, -1).to(torch.float32)
        return hidden_states * d + b
