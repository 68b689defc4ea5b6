# OOM121: a repeat read through an elementwise map (a dtype or device conversion such as `.float()`,
# or a pointwise unary op such as `.sigmoid()`) and then only by broadcasting. A map that computes
# each element on its own commutes with the repeat (`f(x.repeat(r))` equals `f(x).repeat(r)`), so
# it goes on the small tensor and `expand` gives the same values: neither full tensor is made. The
# map after the repeat is also its own finding (OOM111, OOM113): its saving depends on the source
# dtype, the copy's does not (a pair bias that is already float32 still needs no copy).
import torch
import torch.nn.functional as F


def pair_bias(attn, z, heads: int):
    z = z.unsqueeze(1).repeat(1, heads, 1, 1)  # expect: OOM121
    attn = attn + z.float()  # expect: OOM111
    return attn.softmax(dim=-1)


def gated_scores(scores, gate, n: int):
    g = gate.unsqueeze(1).repeat(1, n, 1)  # expect: OOM121
    return scores * g.sigmoid()  # expect: OOM113


def bound_then_broadcast(scores, mask, n: int):
    m = mask.unsqueeze(1).repeat(1, n, 1)  # expect: OOM121
    m = m.to(scores.dtype)  # expect: OOM111
    return scores + (1.0 - m) * -1e4


def function_spelling(scores, gate, n: int):
    g = gate.unsqueeze(1).repeat(1, n, 1)  # expect: OOM121
    return scores * torch.sigmoid(g)  # expect: OOM113


def functional_spelling(scores, gate, n: int):
    g = gate.unsqueeze(1).repeat(1, n, 1)  # expect: OOM121
    return scores + F.softplus(g)  # expect: OOM113
