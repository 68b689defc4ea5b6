# Not a finding: the converted result is updated through a subscript (`x[i] += v` stores into
# x), directly or through an integer-indexed view of it: the copy is needed for that write.
import torch


def shifted_positions(seq_len, batch_size, num_heads, offsets):
    pos = torch.arange(seq_len)[None, None, None, :].expand(batch_size, num_heads, seq_len, -1).float()
    pos[:, 0] += offsets
    return pos


def masked_head(mask, batch_size, num_heads, seq_len, dtype):
    m = mask[:, None, None, :].expand(batch_size, num_heads, seq_len, -1).to(dtype)
    head = m[:, 0]
    head *= 0.5
    return m
