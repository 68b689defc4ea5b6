# A copy of a broadcast view that a function returns, and that a caller written above it in the
# file writes in place: the copy is needed for that write (a view cannot be written), whatever
# the order of the two functions. (Look-alike: OOM103/positive_returned_copy_read_by_earlier_caller.py,
# whose caller only reads the copy.)
import torch


def add_self_loops(edge_attr, fill, batch_size, seq_len, hidden_size, keep):
    loop_attr = make_loop_attr(fill, batch_size, seq_len, hidden_size)
    loop_attr[keep] = edge_attr[keep]
    return torch.cat([edge_attr, loop_attr], dim=0)


def make_loop_attr(fill, batch_size, seq_len, hidden_size):
    return fill.view(1, 1, -1).expand(batch_size, seq_len, hidden_size).contiguous()
