import torch


def used_between(scores, mask, b, h, s):
    m = mask.expand(b, h, s, s)
    print(m.shape)
    m = m.bool()
    return scores.masked_fill(m, 0.0)


def intermediate_used_later(scores, bias, b, s):
    expanded = bias[:, None, :].expand(b, s, -1)
    weights = expanded.float()
    return scores + weights + expanded


def not_a_method_enlarger(scores, x, shape):
    y = torch.broadcast_to(x, shape).float()
    return scores + y
