# Look-alikes of an op between two expanded views that are not worth a finding: together the
# sources span every grown dim, one side is a repeated copy or a further view, the two views
# are expanded to different shapes, one side is only enlarged on one path, or the result is
# the function's output as it is.
import torch


def sources_span_grown_dims(scores, a, c, b, h, q, k):
    # [b, 1, q, k] and [b, h, 1, k]: the broadcast of the sources is already full size.
    x = a[:, None, :, :].expand(b, h, q, k)
    y = c[:, :, None, :].expand(b, h, q, k)
    both = x & y
    return scores.masked_fill(~both, 0.0)


def one_side_repeated(scores, pad, valid, b, h, q, k):
    # The copy is written in place, so it is needed as a copy.
    p = pad[:, None, None, :].repeat(1, h, q, 1)
    p[:, :, 0] = True
    v = valid[:, None, None, :].expand(b, h, q, k)
    allowed = p & v
    return scores.masked_fill(~allowed, 0.0)


def viewed_after_expand(scores, pad, valid, b, h, q, k):
    p = pad[:, None, None, :].expand(b, h, q, k).transpose(2, 3)
    v = valid[:, None, None, :].expand(b, h, k, q)
    allowed = p & v
    return scores.masked_fill(~allowed, 0.0)


def different_targets(scores, pad, valid, b, h, q, k, n):
    p = pad[:, None, None, :].expand(b, h, q, k)
    v = valid[:, None, None, :].expand(b, n, q, k)
    allowed = p & v
    return scores.masked_fill(~allowed, 0.0)


def enlarged_on_one_path(scores, pad, valid, b, h, q, k, wide):
    p = pad[:, None, None, :].expand(b, h, q, k)
    v = valid
    if wide:
        v = valid[:, None, None, :].expand(b, h, q, k)
    allowed = p & v
    return scores.masked_fill(~allowed, 0.0)


def returned_as_is(pad, valid, b, h, q, k):
    # The full-size mask is the function's output.
    p = pad[:, None, None, :].expand(b, h, q, k)
    v = valid[:, None, None, :].expand(b, h, q, k)
    return p & v
