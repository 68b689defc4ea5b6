# Look-alikes of the op-table sinks that are fine.
import torch
import torch.nn as nn
import torch.nn.functional as F


def op_first(x, n):
    # Already in the right order: the math on the small tensor, then the view.
    return torch.cos(x).expand(n, -1)


def reduction_after(x, n):
    # A reduction ends the enlarged value: nothing full-size is written.
    return x.expand(n, -1).sum(0)


def normalize_grown_dim(x, n):
    # Along the dim that grew: normalizing first would give other values.
    y = x[:, :, None].expand(-1, -1, n)
    return F.normalize(y, dim=-1)


def softmax_grown_dim(x, n):
    y = x[:, :, None].expand(-1, -1, n)
    return F.softmax(y, dim=2)


def dropout_view(x, n):
    # A mask drawn per element: not the same values when reordered.
    y = x.expand(n, -1)
    return F.dropout(y, p=0.1)


class Block(nn.Module):
    def __init__(self, d, e):
        super().__init__()
        self.proj = nn.Linear(d, e)

    def forward(self, x, n):
        # The linear layer reads the dim that grew.
        y = x[:, None].expand(-1, n)
        return self.proj(y)


def cumprod_given_dim(bounded, n):
    # The dim given a size (`n`) may be the one that grew: a scan along it is not reordered.
    return bounded[..., None].expand(-1, -1, n).cumprod(-1)


def zeros_like_view(x, n):
    # A factory shaped like its input reads no values: not an op on the view.
    return torch.zeros_like(x.expand(n, -1))


def grid_sample_view(x, grid, n):
    # The grid differs per batch row: sampling first is not the same.
    return F.grid_sample(x.expand(n, -1, -1, -1), grid)


def tril_of_grown_row_dim(x, n):
    # The rows grew: `tril` keeps a different part of each row, so it cannot come first.
    y = x[:, None, :].expand(-1, n, -1)
    return torch.tril(y)
