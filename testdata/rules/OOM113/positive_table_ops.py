# Pointwise math on a repeated copy, by the op table; a copy read only by its own conversions
# (`cos(idx), sin(idx)`) is not "read elsewhere": both move before the repeat.
import torch
import torch.nn.functional as F


def rope_cache(angles, num_heads):
    # (With `torch.outer(torch.arange(seq_len), theta)` as the source the table is tiny at the
    # default sizes; reported with `--min-static-bytes 0`, as the unseen-code repro is.)
    idx = angles.repeat(1, num_heads)
    return torch.cos(idx), torch.sin(idx)  # expect: OOM113


def softplus_copy(x, n):
    y = x.repeat(n, 1)
    return F.softplus(y)  # expect: OOM113


def triu_over_interleaved_heads(scores, heads):
    # Look-alike of the tril over the interleaved dim: here dim -3 grew, and `triu` reads only
    # the last two dims, so it gives the same values before the repeat.
    x = torch.repeat_interleave(scores, heads, dim=-3)
    return x.triu(1)  # expect: OOM113
