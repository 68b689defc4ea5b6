# OOM104 look-alikes of positive_number_attribute.py where the attribute is not known to be a
# number: annotated as a tensor, not annotated at all, or assigned again outside `__init__` (a
# caller may store a tensor there). Combined with a tensor, the view broadcasts as it should.
import torch
from torch import nn


class TensorOperand(nn.Module):
    def __init__(self, table: torch.Tensor, index):
        super().__init__()
        self.table = table
        self.index = index

    def forward(self, last_predictions, hidden_states):
        expanded = last_predictions.unsqueeze(-1).expand_as(hidden_states)
        a = expanded == self.table
        b = expanded == self.index
        return a & b


class Reassigned(nn.Module):
    def __init__(self, end_index: int):
        super().__init__()
        self._end_index = end_index

    def set_end(self, t):
        self._end_index = t

    def forward(self, last_predictions, hidden_states):
        expanded = last_predictions.unsqueeze(-1).expand_as(hidden_states)
        return expanded == self._end_index
