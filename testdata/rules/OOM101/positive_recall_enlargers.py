# OOM101 cast-after-expand through enlargers spelled without `expand`: einops.repeat adding an
# axis (a stride-0 view), torch.broadcast_tensors, `expand(x.shape)`, and a reduction's `dtype=`.
import einops
import torch
from einops import repeat


def heads_values(values, num_heads):
    m = einops.repeat(values, "b n d -> b h n d", h=num_heads)
    return m.float()  # expect: OOM101


def heads_mask_imported(mask, num_heads):
    m = repeat(mask, "b q k -> b h q k", h=num_heads)
    return m.to(torch.float16)  # expect: OOM101


def broadcast_pair(mask, scores):
    m, s = torch.broadcast_tensors(mask, scores)
    return m.float()  # expect: OOM101


def group_std_like(std, x, groups):
    B, C, H, W = x.shape
    x = x.reshape(B, groups, C // groups, H, W)
    return std.expand(x.shape).half()  # expect: OOM101


def expand_like_other(m, other):
    return m.expand(*other.shape).float()  # expect: OOM101


def count_keys(mask, b, h, q):
    m = mask[:, None, None, :].expand(b, h, q, -1)
    return m.sum(dim=-1, dtype=torch.float32)  # expect: OOM101
