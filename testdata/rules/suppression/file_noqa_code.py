# oomlint: noqa: OOM101
# File-level for one code: OOM101 is silenced everywhere in the file, other codes are still reported.
import torch


def f(attn_mask, batch_size, num_heads, seq_len):
    attn_mask = attn_mask.expand(batch_size, num_heads, seq_len, -1)
    return attn_mask.bool()


def g(attention_mask, bsz, q_len, dtype):
    return attention_mask[:, None, :].expand(bsz, q_len, -1).to(dtype)


def h(attention_mask, bsz, q_len, device):
    m = torch.from_numpy(attention_mask)[:, None, :].expand(bsz, q_len, -1)
    return m.to(device)  # expect: OOM102
