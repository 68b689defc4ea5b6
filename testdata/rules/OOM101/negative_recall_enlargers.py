# OOM101 negatives for the spellings without `expand`: nothing is enlarged, or the cast comes
# first, or the reduction's dtype is the one the tensor already has.
import einops
import torch
from itertools import repeat


def rearranged(mask):
    # No new axis: einops.repeat here only permutes.
    m = einops.repeat(mask, "b n -> n b")
    return m.float()


def rearrange_is_not_repeat(x):
    y = einops.rearrange(x, "b (h d) -> b h d", h=8)
    return y.float()


def cast_then_repeat(mask, num_heads, weights):
    m = einops.repeat(mask.float(), "b n -> b h n", h=num_heads)
    return m * weights


def itertools_repeat(x, n):
    xs = list(repeat(x, n))
    return xs


def broadcast_then_combine(a, b):
    a2, b2 = torch.broadcast_tensors(a, b)
    return a2 + b2


def expand_to_own_shape(m):
    return m.expand(m.shape).float()


def sum_without_dtype(mask, b, h, q):
    m = mask[:, None, None, :].expand(b, h, q, -1)
    return m.sum(dim=-1)


def sum_in_own_dtype(b, h, q, k):
    m = torch.ones(b, k, dtype=torch.float32)[:, None, None, :].expand(b, h, q, k)
    return m.sum(dim=-1, dtype=torch.float32)


def sum_of_small(mask):
    return mask.sum(dim=-1, dtype=torch.float32)
