# Look-alikes of `abs(t)` on a broadcast view (positive_builtin_abs.py) that write nothing large:
# `abs` bound to the project's own function, `abs` of a number, and `abs` of the small tensor
# before the expand.
import torch

from helpers import abs as clipped_abs


def rescale(delta, grad, batch_size, seq_len, hidden_size, eps, scale):
    wide = delta.expand(batch_size, seq_len, hidden_size)
    step = abs(scale) * eps
    small = abs(delta).expand(batch_size, seq_len, hidden_size)
    return torch.where(small < step, grad, grad / wide)


def shadowed(delta, batch_size, seq_len, hidden_size):
    def abs(t):
        return t.sum()

    wide = delta.expand(batch_size, seq_len, hidden_size)
    return abs(wide) + clipped_abs(delta)
