# OOM113: q and k repeated over heads (one einops `repeat` in a `map`), then an activation chosen
# by a branch: `relu` in one, a helper that applies `elu` in another. The helper's reads of `q`
# happen on the path of its call, in the `elif`, never on the path through `relu`: applying
# `relu` before the repeat needs no second repeat.
import torch.nn.functional as F
from einops import repeat


def elu_p1(x):
    return (F.elu(x, 1.0, False) + 1.0).to(x)


def activate(q, k, groups, activation):
    q, k = map(lambda x: repeat(x, "... h d -> ... (h g) d", g=groups), (q, k))
    if activation == "relu":
        q = q.relu()  # expect: OOM113
        k = k.relu()  # expect: OOM113
    elif activation == "elu":
        q = elu_p1(q)
        k = elu_p1(k)
    return q, k
