# OOM102 negatives that look like host caches: where the class's stores do not say the tables
# are on the host, the move is of unknown origin (not an OOM102 finding).
import torch
from torch import nn


class DeviceCache(nn.Module):
    def __init__(self):
        super().__init__()
        self._cache = {}

    def forward(self, x):
        n = x.shape[1]
        if n not in self._cache:
            # Made where `x` is: the move does nothing.
            self._cache[n] = torch.arange(n, device=x.device).float()
        pos = self._cache[n][None, :, None].expand(64, -1, 4096)
        return x + pos.to(x.device)


class CacheFilledElsewhere(nn.Module):
    def __init__(self, tables):
        super().__init__()
        # Bound to a dict its caller made: its elements may live anywhere.
        self._cache = tables

    def forward(self, x):
        n = x.shape[1]
        if n not in self._cache:
            self._cache[n] = torch.arange(n).float()
        pos = self._cache[n][None, :, None].expand(64, -1, 4096)
        return x + pos.to(x.device)


class CacheUpdated(nn.Module):
    def __init__(self):
        super().__init__()
        self._cache = {}

    def load(self, other):
        self._cache.update(other)

    def forward(self, x):
        n = x.shape[1]
        if n not in self._cache:
            self._cache[n] = torch.arange(n).float()
        pos = self._cache[n][None, :, None].expand(64, -1, 4096)
        return x + pos.to(x.device)


class BufferTable(nn.Module):
    def __init__(self, n):
        super().__init__()
        # A buffer: `module.to(device)` moves it.
        self.register_buffer("pos", torch.arange(n).float())

    def forward(self, x):
        if self.pos.shape[0] < x.shape[1]:
            self.pos = torch.arange(x.shape[1]).float()
        pos = self.pos[None, :, None].expand(64, -1, 4096)
        return x + pos.to(x.device)


class AttributeSetOutside(nn.Module):
    def __init__(self, table):
        super().__init__()
        # Bound in `__init__` (not walked) to a value of unknown origin, too.
        self._pos = table

    def forward(self, x):
        if self._pos is None:
            self._pos = torch.arange(x.shape[1]).float()
        pos = self._pos[None, :, None].expand(64, -1, 4096)
        return x + pos.to(x.device)
