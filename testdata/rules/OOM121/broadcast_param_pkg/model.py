# OOM121 across a call into another file: a `[1, N, D]` table repeated over the batch and passed
# to a helper that only gathers from it; the copy could be an `expand`.
import torch
from torch import nn

from . import utils
from .utils import apply_masks, passthrough, stored, written


class Predictor(nn.Module):
    def __init__(self):
        super().__init__()
        self.pos_embed = nn.Parameter(torch.zeros(1, 4096, 1024))

    def forward(self, x, masks_x, batch_size):
        pos = self.pos_embed.repeat(batch_size, 1, 1)  # expect: OOM121
        x += utils.apply_masks(pos, masks_x)
        return x

    def by_name(self, x, masks_x, batch_size):
        pos = self.pos_embed.repeat(batch_size, 1, 1)  # expect: OOM121
        return x + apply_masks(pos, masks=masks_x)

    def needs_copy(self, masks_x, batch_size):
        a = self.pos_embed.repeat(batch_size, 1, 1)
        b = self.pos_embed.repeat(batch_size, 1, 1)
        c = self.pos_embed.repeat(batch_size, 1, 1)
        return passthrough(a, masks_x), written(b, masks_x), stored(c, masks_x)
