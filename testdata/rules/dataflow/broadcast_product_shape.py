# The shape of an elementwise op of two tensors is their broadcast (dims aligned from the right):
# `pos[:, None] - pos[None, :]` of a `[seq_len]` tensor is `[seq_len, seq_len]`, so the expanded
# bias is `[batch_size, num_heads, seq_len, seq_len]`, not a size read off one operand. The
# look-alike: a product of two tensors of one shape keeps that shape (a small per-position table).
import torch


def relative_bias(seq_len, batch_size, num_heads):
    pos = torch.arange(seq_len)
    rel = pos[:, None] - pos[None, :]
    return rel[None, None].expand(batch_size, num_heads, -1, -1).float()  # expect: OOM101


def per_position(seq_len, batch_size):
    pos = torch.arange(seq_len)
    scale = pos * pos
    return scale[None].expand(batch_size, -1).float()
