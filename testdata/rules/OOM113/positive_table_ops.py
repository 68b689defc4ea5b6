# Pointwise math on a repeated copy, by the op table; a copy read only by its own conversions
# (`cos(idx), sin(idx)`) is not "read elsewhere": both move before the repeat.
import torch
import torch.nn.functional as F


def rope_cache(theta, seq_len):
    idx = torch.outer(torch.arange(seq_len), theta).repeat(1, 2)
    return torch.cos(idx), torch.sin(idx)  # expect: OOM113


def softplus_copy(x, n):
    y = x.repeat(n, 1)
    return F.softplus(y)  # expect: OOM113
