# OOM113: q and k repeated over value heads only when there are more of them (a copy made on some
# paths), then an activation chosen by a branch nested under another. On the path through `relu`
# the names are rebound to its results: the copy is read nowhere else there, so `relu` before the
# repeat saves the full-size temporary wherever the repeat runs.
from einops import repeat


def activate(q, k, num_heads, num_v_heads, activation):
    if num_v_heads > num_heads:
        q, k = map(lambda x: repeat(x, "... h d -> ... (h g) d", g=num_v_heads // num_heads), (q, k))
    if activation != "silu":
        if activation == "relu":
            q, k = q.relu(), k.relu()  # expect: OOM113
        elif activation != "identity":
            raise NotImplementedError
    return q, k


def activate_elif(q, groups, grouped, activation):
    if grouped:
        q = repeat(q, "... h d -> ... (h g) d", g=groups)
    if activation == "relu":
        q = q.relu()  # expect: OOM113
    elif activation == "sigmoid":
        q = q.sigmoid()  # expect: OOM113
    return q
