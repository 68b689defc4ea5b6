"""A second file of callers, at module level as a script would be."""

import torch

from pkg.geometry import _spread, _spread_gate

x = torch.randn(8, 4096)
h = torch.randn(8, 4096, 4096)
y = _spread(x, 8, 4096, 4096) + h
z = torch.where(h > 0, _spread_gate(x, h[0], 8, 4096, 4096), h)
