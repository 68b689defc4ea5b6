# OOM121 repeat-instead-of-expand: a repeat read only by a pointwise op of torch's op table
# (`torch.special.chebyshev_polynomial_t`, `torch.hypot`, `Tensor.lerp`): every pointwise op
# broadcasts its tensor operands. The orders are a `[1, K]` buffer made in `__init__`
# (`arange(...).unsqueeze(0)`), the grid a `[1, H, W]` one.
import torch
import torch.nn as nn


class Basis(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("orders", torch.arange(1, 8193, dtype=torch.float64).unsqueeze(0))
        self.register_buffer("grid", torch.zeros(1, 4096, 4096))

    def forward(self, x, edges, num_edges):
        n = self.orders.repeat(num_edges, 1)  # expect: OOM121
        return torch.special.chebyshev_polynomial_t(x, n)

    def hypot(self, x, batch_size):
        g = self.grid.repeat(batch_size, 1, 1)  # expect: OOM121
        return x.hypot(g)


def blend(start, end, weight, heads):
    w = weight[:, None, :, :].repeat(1, heads, 1, 1)  # expect: OOM121
    return torch.lerp(start, end, w)
