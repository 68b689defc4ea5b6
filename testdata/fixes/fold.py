import torch


def fold_same_name(scores, mask, b, h, s):
    m = mask[:, None, None, :].expand(b, h, s, s)
    m = m.bool()
    return scores.masked_fill(m, 0.0)


def fold_other_name(scores, bias, b, s):
    expanded = bias[:, None, :].expand(b, s, -1)
    weights = expanded.to(torch.float16)
    return scores + weights


def fold_elementwise_same_name(scores, mask, b, s):
    # The operation folds into the first statement; `m = m` is not left behind.
    m = mask[:, None, :].expand(b, s, -1)
    m = 1.0 - m
    return scores * m
