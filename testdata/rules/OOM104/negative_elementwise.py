# OOM104 negatives: the op runs on the small tensor, or the other operand is genuinely full size.
import torch


def invert_then_expand(attention_mask, bsz, tgt_len, src_len):
    inverted = 1.0 - attention_mask[:, None, None, :]
    return inverted.expand(bsz, 1, tgt_len, src_len)


def add_to_scores(scores, attention_mask, b, h, q):
    # scores is [b, h, q, k]: the sum is full size anyway.
    return scores + attention_mask[:, None, None, :].expand(b, h, q, -1)


def where_with_tensor_branch(scores, keep, b, h, q):
    keep = keep[:, None, None, :].expand(b, h, q, -1)
    return torch.where(keep, scores, float("-inf"))


def mask_times_tensor(mask, values, b, q):
    m = mask[:, None, :].expand(b, q, -1)
    return m * values


def reduce_then_scale(mask, b, q):
    m = mask[:, None, :].expand(b, q, -1)
    return m.sum(-1) * 0.5


def not_enlarged(mask, b):
    m = mask.expand(1, -1)
    return 1.0 - m


def picked_from_output(mask, b, q, encoder, x):
    # `encoder(x)[1]`: an integer index of a value of unknown rank may keep any number of dims;
    # it is not taken for a number.
    m = mask[:, None, :].expand(b, q, -1)
    return m * encoder(x)[1]
