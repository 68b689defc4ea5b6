import torch


def f(scores, mask, b, s):
    m = mask[:, None, :].expand(b, s, -1).bool()
    return scores.masked_fill(m, 0.0)
