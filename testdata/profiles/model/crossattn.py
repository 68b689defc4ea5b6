"""A small cross-attention block written for oomlint's profile samples.

`BuggyCrossAttention` expands a key-padding mask over heads and queries and only then casts it to
the score dtype (OOM101), and repeats a per-head bias over the batch before moving it to the score
dtype (OOM111). `FixedCrossAttention` converts first. scripts/make_profile_samples.py profiles both.
"""

import torch
from torch import nn


class BuggyCrossAttention(nn.Module):
    def __init__(self, hidden=128, heads=8):
        super().__init__()
        self.heads = heads
        self.head_dim = hidden // heads
        self.q = nn.Linear(hidden, hidden)
        self.kv = nn.Linear(hidden, 2 * hidden)
        self.head_bias = nn.Parameter(torch.zeros(1, heads, 1, 1))

    def additive_mask(self, key_padding, batch, q_len):
        mask = key_padding[:, None, None, :].expand(batch, self.heads, q_len, -1)
        mask = mask.to(torch.float32)
        return (1.0 - mask) * -10000.0

    def bias(self, batch):
        return self.head_bias.repeat(batch, 1, 1, 1).to(torch.float64)

    def forward(self, x, memory, key_padding):
        batch, q_len, _ = x.shape
        k_len = memory.shape[1]
        q = self.q(x).view(batch, q_len, self.heads, self.head_dim).transpose(1, 2)
        k, v = self.kv(memory).view(batch, k_len, 2, self.heads, self.head_dim).unbind(2)
        k, v = k.transpose(1, 2), v.transpose(1, 2)
        scores = q @ k.transpose(-1, -2)
        scores = scores + self.additive_mask(key_padding, batch, q_len)
        scores = scores + self.bias(batch).float()
        return (scores.softmax(-1) @ v).transpose(1, 2).reshape(batch, q_len, -1)


class FixedCrossAttention(BuggyCrossAttention):
    def additive_mask(self, key_padding, batch, q_len):
        mask = key_padding[:, None, None, :].to(torch.float32)
        return ((1.0 - mask) * -10000.0).expand(batch, self.heads, q_len, -1)

    def bias(self, batch):
        return self.head_bias.to(torch.float64).repeat(batch, 1, 1, 1)
