# Suppression: a bare `# noqa` silences every code on the statement.
import torch


def f(attn_mask, batch_size, num_heads, seq_len):
    attn_mask = attn_mask.expand(batch_size, num_heads, seq_len, -1)
    return attn_mask.bool()  # noqa


def g(attention_mask, bsz, q_len):
    return attention_mask[:, None, :].expand(bsz, q_len, -1).cuda()  # NOQA
