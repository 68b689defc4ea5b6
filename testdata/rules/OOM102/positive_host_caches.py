# OOM102 of a table a class keeps on the host: `module.to(device)` moves parameters and buffers
# only, so a dict cache (or a plain attribute) filled with host tensors stays on the host, and a
# `.to(x.device)` of an expanded view of one copies the whole view across.
import numpy as np
import torch
from torch import nn


def rotary_table(n, dim):
    inv = 1.0 / 10000 ** (torch.arange(dim // 2) / (dim // 2))
    t, j = torch.meshgrid(torch.arange(n), torch.arange(dim // 2), indexing="ij")
    return torch.cat([torch.cos(t * inv[j]), torch.sin(t * inv[j])], dim=-1)


class CachedRotary(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim
        self._cache = {}

    def _table(self, n):
        if n not in self._cache:
            self._cache[n] = rotary_table(n, self.dim)
        return self._cache[n]

    def forward(self, x):
        # Read back through a method of the class.
        table = self._table(x.shape[1])[None].expand(64, x.shape[1], self.dim)
        return x * table.to(x.device)  # expect: OOM102


class NumpyLookup(nn.Module):
    def __init__(self):
        super().__init__()
        self.tables = dict()

    def forward(self, x, key, grid: np.ndarray):
        if key not in self.tables:
            self.tables[key] = torch.from_numpy(grid)
        pos = self.tables[key].unsqueeze(0).expand(64, -1, -1)
        return x + pos.to(x.device)  # expect: OOM102


class AttributeCache(nn.Module):
    def __init__(self):
        super().__init__()
        self._pos = None

    def forward(self, x):
        if self._pos is None:
            self._pos = torch.arange(x.shape[1]).float()
        pos = self._pos[None, :, None].expand(64, -1, 4096)
        return x + pos.to(x.device)  # expect: OOM102
