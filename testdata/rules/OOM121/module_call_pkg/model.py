# OOM121 across a call made through the helper's module (`utils.select_rows(...)`), in a file that
# never names the helper bare: the summary of `select_rows` (it only gathers from `table`) reaches it
# as well. The look-alike passes its copy to a helper that returns it (the copy is needed).
import torch
from torch import nn

from . import utils


class ModulePredictor(nn.Module):
    def __init__(self):
        super().__init__()
        self.pos_embed = nn.Parameter(torch.zeros(1, 4096, 1024))

    def forward(self, x, masks_x, batch_size):
        pos = self.pos_embed.repeat(batch_size, 1, 1)  # expect: OOM121
        x += utils.select_rows(pos, masks_x)
        return x

    def kept(self, masks_x, batch_size):
        pos = self.pos_embed.repeat(batch_size, 1, 1)
        return utils.passthrough(pos, masks_x)
