# OOM101: the look-alikes of not_a_finding/false_alarms/own_parameter_dtype.py. A bfloat16
# parameter is converted at full size; a parameter assigned twice, or made from a tensor of
# unknown dtype, may be anything.
import torch
from torch import nn


class Decay(nn.Module):
    def __init__(self, num_heads, head_dim, init):
        super().__init__()
        self.decay = nn.Parameter(torch.randn(num_heads, head_dim, dtype=torch.bfloat16))
        self.given = nn.Parameter(init)
        self.reset = nn.Parameter(torch.randn(num_heads, head_dim))

    def reset_parameters(self, num_heads, head_dim):
        self.reset = nn.Parameter(torch.randn(num_heads, head_dim, dtype=torch.float16))

    def forward(self, hidden_states, batch_size, seq_len):
        d = self.decay[None, :, None, :].expand(batch_size, -1, seq_len, -1).float()  # expect: OOM101
        g = self.given[None, :, None, :].expand(batch_size, -1, seq_len, -1).float()  # expect: OOM101
        r = self.reset[None, :, None, :].expand(batch_size, -1, seq_len, -1).float()  # expect: OOM101
        return hidden_states * d + g + r
