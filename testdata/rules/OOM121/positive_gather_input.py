# OOM121 repeat-instead-of-expand: the input of a gather repeated over a size-1 batch dim (a
# learned table `[1, N, D]` per sample); gather reads a stride-0 input as it reads a copy, and a
# read of the copy's shape is no read of its values.
import torch
import torch.nn as nn


def gathered_source(x, ids, D):
    src = x.unsqueeze(-1).repeat(1, 1, D)  # expect: OOM121
    return torch.gather(src, 1, ids)


class Predictor(nn.Module):
    def __init__(self):
        super().__init__()
        self.pos_embed = nn.Parameter(torch.zeros(1, 4096, 1024))

    def forward(self, x, keep):
        B = len(x)
        pos = self.pos_embed.repeat(B, 1, 1)  # expect: OOM121
        index = keep.unsqueeze(-1).expand(-1, -1, pos.shape[-1])
        return x + torch.gather(pos, dim=1, index=index)

    def method_form(self, x, keep):
        pos = self.pos_embed.repeat(x.size(0), 1, 1)  # expect: OOM121
        return pos.take_along_dim(keep.unsqueeze(-1), dim=1)
