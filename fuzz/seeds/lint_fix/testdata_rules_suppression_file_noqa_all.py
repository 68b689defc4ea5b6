# oomlint: noqa
# File-level: nothing in this file is reported.
import torch


def f(attn_mask, batch_size, num_heads, seq_len):
    attn_mask = attn_mask.expand(batch_size, num_heads, seq_len, -1)
    return attn_mask.bool()


def g(attention_mask, bsz, q_len, device):
    m = attention_mask[:, None, :].expand(bsz, q_len, -1)
    return m.to(device), 1.0 - m, m.contiguous(), attention_mask.repeat(bsz, 1).float()
