# Look-alikes of a small einops table that are large: the pattern grows a per-head table over two
# token axes (`'h -> b h i j'`), or a `[b, j]` mask over heads and queries; the axes the pattern
# names give the shape, and it is an attention-sized tensor.
import torch
from einops import repeat


def head_bias(sim, head_bias):
    full = repeat(head_bias, "h -> b h i j", b=sim.shape[0], i=sim.shape[2], j=sim.shape[3])
    full = full.abs()  # expect: OOM104
    return sim + full


def key_mask(mask, heads, q_len):
    m = repeat(mask, "b j -> b h i j", h=heads, i=q_len)
    return ~m  # expect: OOM104
