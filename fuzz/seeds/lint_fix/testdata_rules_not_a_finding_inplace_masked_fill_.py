# Not a finding: the cast result is modified with an in-place method, which a broadcast view forbids.
import torch


def additive_mask(attention_mask, bsz, tgt_len, dtype):
    mask = attention_mask[:, None, None, :].expand(bsz, 1, tgt_len, -1).to(dtype)
    mask.masked_fill_(mask == 0, torch.finfo(dtype).min)
    return mask


def contiguous_then_fill(keep, extra, bsz, q_len):
    m = keep[:, None, :].expand(bsz, q_len, -1).contiguous()
    m.masked_fill_(extra, True)
    return m
