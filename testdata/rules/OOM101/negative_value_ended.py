# OOM101 negatives: something between the expand and the cast ends the enlargement.
import torch
import torch.nn.functional as F


def reduced_first(mask, b, q):
    m = mask[:, None, :].expand(b, q, -1)
    return m.sum(-1).float()


def any_first(mask, b, h, q):
    return mask[:, None, None, :].expand(b, h, q, -1).any(dim=1).long()


def boolean_index(mask, keep, b, q):
    m = mask[:, None, :].expand(b, q, -1)
    return m[keep].float()


def integer_index(mask, b, q):
    m = mask[:, None, :].expand(b, q, -1)
    return m[0].half()


def unknown_call(mask, b, q):
    m = mask[:, None, :].expand(b, q, -1)
    # (`F.pad` of the view is a sink of its own now: OOM103's positive_pad_of_view.py.)
    # (`F.softmax` along a dim that did not grow is a sink now: OOM104's positive_table_ops.py.)
    return custom_attention(m, dim=-1).float()


def full_size_operand(scores, mask, b, h, q, k):
    scores = scores + mask[:, None, None, :].expand(b, h, q, k)
    return scores.float()
