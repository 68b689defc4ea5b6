# Look-alike of not_a_finding/returned_copy_written_by_earlier_caller.py: the caller above the
# function that returns the copy only reads it, so the copy is not needed there.
import torch


def add_self_loops(edge_attr, fill, batch_size, seq_len, hidden_size):
    loop_attr = make_loop_attr(fill, batch_size, seq_len, hidden_size)
    return torch.cat([edge_attr, loop_attr], dim=0)


def make_loop_attr(fill, batch_size, seq_len, hidden_size):
    return fill.view(1, 1, -1).expand(batch_size, seq_len, hidden_size).contiguous()  # expect: OOM103
