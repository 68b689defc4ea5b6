# OOM104 on an op between two broadcast views expanded to the same shape, where neither source
# has some grown dim: the op could run on the small sources (broadcast against each other) and
# be expanded after.
import torch


def padding_and_valid(scores, pad, valid, b, h, q, k):
    # Both sources are [b, 1, 1, k]: heads and queries are grown in both.
    p = pad[:, None, None, :].expand(b, h, q, k)
    v = valid[:, None, None, :].expand(b, h, q, k)
    allowed = p & v  # expect: OOM104
    return scores.masked_fill(~allowed, float("-inf"))


def causal_and_padding(scores, mask, causal, b, h, q, k):
    # [b, 1, q, k] and [1, 1, q, k]: heads are grown in both.
    m = mask[:, None, :, :].expand(b, h, q, k)
    c = causal[None, None, :, :].expand(b, h, q, k)
    keep = m * c  # expect: OOM104
    return scores + keep


def additive_then_cast(bias, mask, b, h, q, k, dtype):
    # Converted again before it is returned: a second full-size copy.
    x = bias[:, None, None, :].expand(b, h, q, k)
    y = mask[:, None, :, None].expand(b, h, q, k)
    return (x + y).to(dtype)  # expect: OOM104
