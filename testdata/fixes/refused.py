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


def cast_under_if(mask, flag, b, h, s):
    # Folding the cast into the first statement would convert on the path that does not.
    m = mask[:, None, None, :].expand(b, h, s, -1)
    if flag:
        m = m.bool()
        print("converted")
    return m


def repeat_cast_under_if(x, flag, b, h, s):
    r = x[:, None, None, :].repeat(b, h, s, 1)
    if flag:
        r = r.float()
    return r


def elementwise_under_if(mask, flag, b, h, s):
    m = mask[:, None, None, :].expand(b, h, s, -1)
    if flag:
        m = m * 2
        print("scaled")
    return m
