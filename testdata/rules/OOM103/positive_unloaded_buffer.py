# Look-alikes of a persistent buffer's needed copy (not_a_finding/false_alarms/
# needed_state_buffer.py): a buffer registered with `persistent=False` is not in the state dict,
# so nothing loads into it; when every later read only broadcasts it, the expand view would do.
import torch
from torch import nn


class Standardize(nn.Module):
    def __init__(self, mean, batch_size, seq_len, hidden_size):
        super().__init__()
        mean_full = mean.expand(batch_size, seq_len, hidden_size).clone()  # expect: OOM103
        self.register_buffer("mean", mean_full, persistent=False)
        self.register_buffer(
            "shift",
            mean.expand(batch_size, seq_len, hidden_size).contiguous(),  # expect: OOM103
            False,
        )

    def forward(self, x):
        return x - self.mean + self.shift
