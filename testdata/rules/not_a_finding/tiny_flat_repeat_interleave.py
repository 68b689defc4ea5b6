# `repeat_interleave` without a `dim` on a 1-d tensor of per-item counts: the result is flat, one
# entry per frame or segment (`[sum(counts)]`), such as the `cu_seqlens` of a vision encoder; its
# `cumsum(dtype=)` or cast is a few KiB. Not reported at the default `min-static-bytes`.
import torch
import torch.nn.functional as F


def vision_cu_seqlens(grid_thw):
    seqlens = torch.repeat_interleave(grid_thw[:, 1] * grid_thw[:, 2], grid_thw[:, 0])
    return F.pad(seqlens.cumsum(dim=0, dtype=torch.int32), (1, 0), value=0)


def segment_ids(lengths, counts):
    lengths = lengths.view(-1)
    return lengths.repeat_interleave(counts).float()
