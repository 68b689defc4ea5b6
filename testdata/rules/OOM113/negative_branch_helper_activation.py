# Not OOM113: the helper that reads the repeated copy is called on the path through the `relu`
# too (after the `if`), so `relu` first would need a second repeat for the helper's read.
import torch.nn.functional as F
from einops import repeat


def scaled(x):
    return x.sum(-1, keepdim=True)


def activate(q, groups, activation):
    q = repeat(q, "... h d -> ... (h g) d", g=groups)
    s = scaled(q)
    if activation == "relu":
        q = q.relu()
    elif activation == "elu":
        q = F.elu(q)
    return q, s
