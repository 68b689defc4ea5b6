# Not OOM113: the repeat runs on some paths only, and on the path through `relu` the copy is still
# read afterwards (returned beside the activation, kept by the caller): `relu` first would need
# the repeat anyway, and the full-size copy stays.
from einops import repeat


def activate_and_keep(q, groups, grouped, activation):
    if grouped:
        q = repeat(q, "... h d -> ... (h g) d", g=groups)
    a = q
    if activation == "relu":
        a = q.relu()
    return q, a
