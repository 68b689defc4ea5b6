# Not a finding: `.pin_memory()` is not a device move. It copies into page-locked host memory for
# the asynchronous transfer that follows; pinning the small tensor before the enlargement would
# not pin the enlarged result, and the pinned copy is what the code moves. The look-alike that
# fires (a host copy moved with `.cuda()`) is `tiled_to_cuda` in OOM112/positive_move_after_repeat.py.
import torch


def pinned_table(table, n):
    return torch.tile(table.cpu(), (n, 1)).pin_memory()


def pinned_then_moved(lengths, batch_size, seq_len):
    ids = torch.arange(seq_len).repeat(batch_size, 1).pin_memory()
    return ids.to("cuda", non_blocking=True)


def pinned_view(seq_len, batch_size):
    scores = torch.zeros(seq_len, seq_len)[None].expand(batch_size, seq_len, seq_len)
    return scores.pin_memory()
