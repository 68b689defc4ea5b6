# OOM104 negatives: the other operand may be a full-size tensor (a name or attribute not spelled
# like a number, a tensor built here), or the mask of masked_fill spans the enlarged dims.
import torch


class Block:
    def weighted(self, x, b):
        e = x[None].expand(b, -1, -1)
        return e * self.weight

    def gated(self, x, b):
        e = x[None].expand(b, -1, -1)
        return e * self.gamma


def plus_scores(mask, scores, b, h, q):
    m = mask[:, None, None, :].expand(b, h, q, -1)
    return m + scores


def tensor_scale(emb, b, d):
    scale = torch.ones(b, 1, d)
    e = emb[None].expand(b, -1, -1)
    return scale * e


def full_size_branch(mask, b, h, q, k, min_value):
    m = mask[:, None, None, :].expand(b, h, q, -1)
    return torch.where(m, torch.zeros(b, h, q, k), min_value)


def filled_with_full_mask(bias, keep, b, h, q):
    m = bias[:, None, None, :].expand(b, h, q, -1)
    return m.masked_fill(keep, 0.0)


def filled_with_tensor(bias, cond, fill, b, q):
    m = bias[:, None, :].expand(b, q, -1)
    return m.masked_fill(bias[:, None, :] > 0, fill)


def compared_to_index_tensor(ids, b, positions):
    m = ids[None].expand(b, -1)
    return m == positions


def other_spans_grown_dims(mask, b, h, q, k):
    # The other operand has every expanded dim: the result is full size in any order.
    m = mask[:, None, None, :].expand(b, h, q, k)
    other = torch.ones(b, h, q, k, dtype=torch.bool)
    return m & other


def other_of_unknown_shape(mask, causal_mask, b, h, q, k):
    m = mask[:, None, :, :].expand(b, h, q, k)
    return m & ~causal_mask


def viewed_after_expand(mask, b, h, q, k):
    # The expand is followed by a view: which dims grew is no longer tracked.
    m = mask[:, None, :, :].expand(b, h, q, k).transpose(2, 3)
    causal_mask = torch.tril(torch.ones(k, q, dtype=torch.bool))[None, None, :, :]
    return m & causal_mask


def compared_to_end_index(input_ids, question_end_index):
    # `question_end_index` is a [batch, 1] tensor: names ending in `_index` are not taken for numbers.
    positions = torch.arange(input_ids.shape[1])
    return positions.expand_as(input_ids) < question_end_index
