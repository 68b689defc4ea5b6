# OOM103: the look-alikes of negative_written_in_place.py. A copy that is only read (a new
# tensor made from it is not a write to it), a write to a different tensor, and a write through a
# tensor-indexed read (`grid[idx]` copies) leave the copy unneeded: still reported.
import torch


def read_into_new(base, batch_size, num_heads, seq_len):
    grid = base[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).clone()  # expect: OOM103
    shifted = grid + 1
    return shifted.long()


def writes_other_tensor(base, other, batch_size, num_heads, seq_len):
    grid = base[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).clone()  # expect: OOM103
    other[:, ..., 1] += seq_len
    return torch.floor(grid).long()


def writes_gathered_copy(base, batch_size, num_heads, seq_len):
    grid = base[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).clone()  # expect: OOM103
    picked = grid[torch.arange(batch_size)]
    picked += 1
    return grid.long()
