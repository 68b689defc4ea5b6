# `map(fn, (a, b))`, a lambda and a generator over a tuple display give their elements one by one
# (`q, k = map(f, (q, k))`): each element's sink is a finding. Traps: a lambda that indexes one
# element of the enlarged dim, a map over tensors that are not enlarged.
import einops
import torch


def gqa(q, k, n_rep):
    q, k = map(lambda t: t.repeat(1, 1, n_rep, 1), (q, k))
    q, k = map(torch.sigmoid, (q, k))  # expect: OOM113
    return q @ k.transpose(-1, -2)


def gated(k, gk, n_rep):
    k, gk = (einops.repeat(t, "b t h d -> b t (h g) d", g=n_rep).contiguous() for t in (k, gk))
    gk = torch.sigmoid(gk)  # expect: OOM113
    return k * gk


def listed(q, k, batch_size, seq_len):
    q, k = [t[:, None].expand(batch_size, seq_len, -1, -1) for t in (q, k)]
    return q.float(), k  # expect: OOM101


def lambda_indexes(q, k, n_rep):
    q, k = map(lambda t: t.repeat(n_rep, 1, 1, 1)[0], (q, k))
    return q.float(), k.float()


def not_enlarged(q, k):
    q, k = map(torch.sigmoid, (q, k))
    return q.float(), k.float()
