import torch


def through_views(scores, mask, b, h, s):
    x = mask[:, None, None, :].expand(b, h, s, s)
    y = x.transpose(2, 3)
    z = y.float()
    return scores + z


def same_name_views(scores, mask, b, h, s):
    m = mask[:, None, None, :].expand(b, h, s, s)
    m = m[:, :, :, :s]
    m = m.bool()
    return scores.masked_fill(m, 0.0)


def view_with_dtype_is_refused(scores, mask, b, s):
    x = mask[:, None, :].expand(b, s, -1)
    y = x.view(torch.int32)
    z = y.float()
    return scores + z


def intermediate_read_later(scores, mask, b, s):
    x = mask[:, None, :].expand(b, s, -1)
    y = x.transpose(1, 2)
    z = y.float()
    return scores + z + x
