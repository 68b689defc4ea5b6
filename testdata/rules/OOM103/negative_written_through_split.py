# OOM103 negatives: a copy written in place through the parts it is split into. `unbind`,
# `chunk`, `split` and the other splits return views of the copy's memory, so a write through a
# part (pyro's stable-distribution hole: `lower, upper = alpha_.unbind(-1)`, then
# `lower.data[near] = ...`) writes the copy, which is needed. Select OOM131 to see these copies.
import torch


def hole_interpolation(alpha, near_hole, hole, radius, batch_size, seq_len):
    alpha_ = alpha[:, None, :].expand(batch_size, seq_len, seq_len).contiguous()
    lower, upper = alpha_.unbind(0)
    lower.data[near_hole] = hole - radius
    upper.data[near_hole] = hole + radius
    return torch.softmax(alpha_, dim=-1)


def halves_written(base, batch_size, num_heads, seq_len):
    grid = base[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).clone()
    left, right = grid.chunk(2, dim=-1)
    right[..., 0] = 0
    return torch.floor(grid).long()
