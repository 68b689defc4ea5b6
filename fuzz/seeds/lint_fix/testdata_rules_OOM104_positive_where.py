# OOM104 elementwise-after-expand: torch.where with scalar branches writes a full-size result.
import torch


def where_scalar_branches(keep, bsz, heads, q_len):
    keep = keep[:, None, None, :].expand(bsz, heads, q_len, -1)
    return torch.where(keep, 0.0, float("-inf"))  # expect: OOM104


def where_finfo(keep, dtype, bsz, q_len):
    keep = keep[:, None, :].expand(bsz, q_len, -1)
    bias = torch.where(  # expect: OOM104
        keep,
        0.0,
        torch.finfo(dtype).min,
    )
    return bias
