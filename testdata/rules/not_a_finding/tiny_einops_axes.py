# `einops.repeat` of a small per-head table over the batch and the query positions, with a unit
# last axis (`'h -> b h i 1'`): the pattern names every axis, so the result's shape is known,
# `[b, h, i, 1]`, a few MiB at realistic sizes (batch 8, 32 heads); its `abs()` or cast is not
# worth a reorder. Not reported at the default `min-static-bytes`.
import torch
from einops import repeat


def attention_sink(sim, head_attn_sink):
    attn_sink = repeat(head_attn_sink, "h -> b h i 1", b=sim.shape[0], i=sim.shape[2])
    attn_sink, attn_sink_sign = attn_sink.abs(), attn_sink.sign()
    return torch.cat((attn_sink, sim), dim=-1), attn_sink_sign


def head_scale(sim, head_scale):
    scale = repeat(head_scale, "h -> b h 1 1", b=sim.shape[0])
    return sim * scale.float()
