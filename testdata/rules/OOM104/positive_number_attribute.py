# OOM104: a broadcast view compared with an attribute that holds a Python number. `__init__` sets
# `self._end_index` once, from a parameter annotated `int` (AllenNLP's beam search compares the
# expanded last predictions with it at every step), so the comparison's operand is a number and its
# result has the view's full shape: compare first, then expand.
import torch
from torch import nn


class EndMask(nn.Module):
    def __init__(self, end_index: int, floor: float = -1e4):
        super().__init__()
        self._end_index = end_index
        self.floor = floor

    def forward(self, last_predictions, hidden_states):
        expanded = last_predictions.unsqueeze(-1).expand_as(hidden_states)
        hit = expanded == self._end_index  # expect: OOM104
        return torch.where(hit, hidden_states, self.floor)


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = 0.125

    def forward(self, bias, scores):
        return bias.unsqueeze(1).expand_as(scores) * self.scale  # expect: OOM104
