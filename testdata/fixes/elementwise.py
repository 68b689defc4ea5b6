import torch


def expand_mask(mask: torch.Tensor, dtype: torch.dtype, tgt_len: int):
    bsz, src_len = mask.size()
    expanded_mask = mask[:, None, None, :].expand(bsz, 1, tgt_len, src_len).to(dtype)
    inverted_mask = 1.0 - expanded_mask
    return inverted_mask.masked_fill(inverted_mask.to(torch.bool), torch.finfo(dtype).min)


def inline(scores, m, b, s):
    w = (1.0 - m[:, None, :].expand(b, s, -1)) * 0.5
    return scores + w


def inverted(scores, keep, b, s):
    drop = ~keep[:, None, :].expand(b, s, -1)
    return scores.masked_fill(drop, 0.0)


def parenthesized(scores, a, c, b, s):
    m = (a + c).expand(b, s, -1).bool()
    return scores.masked_fill(m, 0.0)


def function_forms(scores, keep, b, s):
    drop = torch.logical_not(keep[:, None, :].expand(b, s, -1))
    return scores.masked_fill(drop, 0.0)
