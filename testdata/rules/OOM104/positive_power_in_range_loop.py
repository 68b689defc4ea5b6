# OOM104: a power series of a broadcast view, one term per pass of `for i in range(order)`: `i` is
# a Python int, so `x_expanded ** i` is an op with a number that writes the full [N, out, in]
# tensor on every pass; raise the small `x` to the power first, then expand.
import torch
from torch import nn


class TaylorLayer(nn.Module):
    def __init__(self, input_dim, out_dim, order):
        super().__init__()
        self.input_dim = input_dim
        self.out_dim = out_dim
        self.order = order
        self.coeffs = nn.Parameter(torch.randn(out_dim, input_dim, order))

    def forward(self, x):
        x = torch.reshape(x, (-1, self.input_dim))
        x_expanded = x.unsqueeze(1).expand(-1, self.out_dim, -1)
        y = torch.zeros((x.shape[0], self.out_dim), device=x.device)
        for i in range(self.order):
            term = (x_expanded**i) * self.coeffs[:, :, i]  # expect: OOM104
            y += term.sum(dim=-1)
        return y
