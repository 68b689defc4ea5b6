# Dataflow: tuple unpacking keeps each element's fact.
import torch


def unpack(attention_mask, position_ids, bsz, heads, q_len):
    mask, pos = attention_mask[:, None, None, :].expand(bsz, heads, q_len, -1), position_ids
    pos = pos.float()
    return mask.bool(), pos  # expect: OOM101


def swap(a, b, bsz, q_len):
    a, b = b[:, None, :].expand(bsz, q_len, -1), a
    return a.half(), b.half()  # expect: OOM101


def starred(mask, bsz, q_len):
    first, *rest = mask[:, None, :].expand(bsz, q_len, -1), 1, 2
    return first.to(torch.float16), rest  # expect: OOM101


def nested(attention_mask, bsz, q_len, device):
    (mask, _), n = (torch.from_numpy(attention_mask)[:, None, :].expand(bsz, q_len, -1), None), 3
    return mask.to(device), n  # expect: OOM102
