# Dataflow: views keep a value enlarged across statements.
import torch


def many_views(attention_mask, bsz, heads, q_len):
    m = attention_mask[:, None, None, :].expand(bsz, heads, q_len, -1)
    m = m.transpose(2, 3)
    m = m.permute(0, 1, 3, 2)
    m = m.unsqueeze(0).squeeze(0)
    m = m[:, :, :, None, :]
    m = m.view(bsz, heads, q_len, 1, -1)
    m = m.requires_grad_(False)
    return m.bool()  # expect: OOM101


def transpose_attr(bias, seq_len, hidden_size):
    p = bias[None, :].expand(seq_len, hidden_size).T
    return p.float()  # expect: OOM101
