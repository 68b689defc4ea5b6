# The op table says `isin` is bool: a `.float()` of its expansion is a real cast.
import torch


def kept_as_float(ids, k):
    keep = torch.isin(ids, torch.tensor([0, 1, 2]))
    return keep[:, None].expand(-1, k).float()  # expect: OOM101
