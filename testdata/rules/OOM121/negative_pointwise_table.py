# Look-alikes of a repeat read by a pointwise op that stay silent: written in place, passed to a
# function of another package, merged by a view, joined by `cat` along the repeated dim,
# returned, stored on `self`, or the `out=` of the op.
import torch
import torch.nn as nn
from vendor_kernels import fused_basis


class Basis(nn.Module):
    def __init__(self, num_basis=8):
        super().__init__()
        self.register_buffer("orders", torch.arange(1, num_basis + 1).unsqueeze(0))

    def in_place(self, x, num_edges):
        n = self.orders.repeat(num_edges, 1)
        n.mul_(2)
        return torch.hypot(x, n)

    def leaves(self, x, num_edges):
        n = self.orders.repeat(num_edges, 1)
        fused_basis(n)
        return torch.hypot(x, n)

    def merged(self, x, num_edges):
        n = self.orders.repeat(num_edges, 1)
        return torch.hypot(x, n).view(-1) + n.view(-1)

    def joined(self, x, num_edges):
        n = self.orders.repeat(num_edges, 1)
        return torch.cat([torch.hypot(x, n), n], dim=0)

    def returned(self, x, num_edges):
        n = self.orders.repeat(num_edges, 1)
        return torch.hypot(x, n), n

    def stored(self, x, num_edges):
        n = self.orders.repeat(num_edges, 1)
        self.cache = n
        return torch.hypot(x, n)

    def out_arg(self, x, y, num_edges):
        n = self.orders.repeat(num_edges, 1)
        torch.hypot(x, y, out=n)
        return n
