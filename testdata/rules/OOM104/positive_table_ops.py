# Ops the op table (generated from torch) knows, on a broadcast view: pointwise math, ops along a
# dim that did not grow, resampling, and modules built in `__init__` acting as their functional
# form. Each writes the full enlarged size; doing it first and expanding after does not.
import torch
import torch.nn as nn
import torch.nn.functional as F


def softplus_of_view(hidden, batch_size, seq_len, hidden_size):
    y = hidden[None, None, :].expand(batch_size, seq_len, hidden_size)
    return F.softplus(y)  # expect: OOM104


def normalize_last(x, n):
    y = x[:, None, :].expand(-1, n, -1)
    return F.normalize(y, dim=-1)  # expect: OOM104


def softmax_method(x, n):
    y = x[:, None, :].expand(-1, n, -1)
    return y.softmax(-1)  # expect: OOM104


def interpolate_view(x, n):
    y = x.expand(n, -1, -1, -1)
    return F.interpolate(y, scale_factor=2)  # expect: OOM104


def clamp_view(bias, batch_size, seq_len, hidden_size):
    y = bias[None, None, :].expand(batch_size, seq_len, hidden_size)
    return y.clamp(0, 1)  # expect: OOM104


def exp_view(scale, batch_size, seq_len, hidden_size):
    return torch.exp(scale[None, None, :].expand(batch_size, seq_len, hidden_size))  # expect: OOM104


class Block(nn.Module):
    def __init__(self, d, e):
        super().__init__()
        self.proj = nn.Linear(d, e)
        self.act = nn.GELU()

    def forward(self, x, n):
        y = x.expand(n, -1, -1)
        return self.proj(y)  # expect: OOM104

    def activate(self, x, n):
        y = x.expand(n, -1, -1)
        return self.act(y)  # expect: OOM104


def tril_of_batch_broadcast(b, h, n):
    # `tril` acts on the last two dims (a batch of matrices): the broadcast dims are batch dims.
    scores = torch.ones(n, n)
    x = scores[None, None].expand(b, h, n, n)
    return torch.tril(x)  # expect: OOM104
