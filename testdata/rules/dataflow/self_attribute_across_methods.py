# Dataflow: an attribute every method of the class stores enlarged (in `__init__`, `setup`, any
# method, or with `register_buffer`) is enlarged wherever it is read; its conversion in
# `forward` is a finding, pointing at the method that enlarged it.
import torch
from torch import nn


class CausalBias(nn.Module):
    def __init__(self, bias, batch_size, num_heads, seq_len):
        super().__init__()
        self.bias = bias[None, None, :, :].expand(batch_size, num_heads, seq_len, seq_len)

    def forward(self, scores):
        return scores + self.bias.to(scores.dtype)  # expect: OOM101


class SetupMask:
    def setup(self, attention_mask, batch_size, num_heads, seq_len):
        self.mask = attention_mask[:, None, None, :].expand(batch_size, num_heads, seq_len, -1)

    def reset(self, attention_mask, batch_size, num_heads, seq_len):
        self.mask = attention_mask[:, None, :, None].expand(batch_size, num_heads, -1, seq_len)

    def apply(self, scores):
        mask = self.mask.bool()  # expect: OOM101
        return scores.masked_fill(~mask, 0.0)


class Buffered(nn.Module):
    def __init__(self, alibi, batch_size, seq_len):
        super().__init__()
        self.register_buffer(
            "alibi", alibi[None, :, None, :].expand(batch_size, -1, seq_len, -1), persistent=False
        )

    def forward(self, scores):
        return scores + self.alibi.float()  # expect: OOM101

    def mask(self):
        return self.alibi


class UsesGetter(nn.Module):
    def __init__(self, alibi, batch_size, seq_len):
        super().__init__()
        self.alibi = alibi[None, :, None, :].expand(batch_size, -1, seq_len, -1)

    def get_alibi(self):
        return self.alibi

    def forward(self, scores):
        return scores + self.get_alibi().half()  # expect: OOM101
