# OOM101: the look-alikes of not_a_finding/inplace_subscript_augassign.py. A write to another
# tensor's subscript, and a new tensor computed from the cast, do not make the cast's copy needed.
import torch


def shifts_other(seq_len, batch_size, num_heads, offsets, table):
    pos = torch.arange(seq_len)[None, None, None, :].expand(batch_size, num_heads, seq_len, -1).float()  # expect: OOM101
    table[:, 0] += offsets
    return pos


def new_from_cast(mask, batch_size, num_heads, seq_len, dtype):
    m = mask[:, None, None, :].expand(batch_size, num_heads, seq_len, -1).to(dtype)  # expect: OOM101
    half = m[:, 0] * 0.5
    return m, half
