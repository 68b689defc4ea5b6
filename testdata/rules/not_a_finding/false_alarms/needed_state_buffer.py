# Not a finding: a copy registered as a persistent buffer is module state. `load_state_dict`
# copies the saved values into it in place (`buf.copy_(loaded)`), which a stride-0 view refuses
# ("more than one element of the written-to tensor refers to a single memory location"), so the
# dense copy is needed, from a local name or written in the call. The non-persistent look-alike,
# never loaded and only broadcast, fires in OOM103/positive_unloaded_buffer.py.
import torch
from torch import nn


class Standardize(nn.Module):
    def __init__(self, mean, std, input_shape):
        super().__init__()
        mean_full = torch.as_tensor(mean).expand(input_shape).clone()
        self.register_buffer("mean", mean_full)
        self.register_buffer("std", torch.as_tensor(std).expand(input_shape).contiguous(), True)
        self.register_buffer("scale", torch.ones(1).expand(input_shape).clone(), persistent=True)

        self.input_shape = input_shape

    def forward(self, x):
        mean = self.mean.view(1, *self.input_shape)
        std = self.std.view(1, *self.input_shape)
        return (x - mean) / std * self.scale
