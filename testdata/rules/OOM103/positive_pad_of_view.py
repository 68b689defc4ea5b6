# OOM103 materialize-after-expand: F.pad writes a new tensor of the expanded size.
import torch
import torch.nn.functional as F
from torch.nn.functional import pad


def padded_mask(mask, b, h, q):
    m = mask[:, None, None, :].expand(b, h, q, -1)
    return F.pad(m, (0, 1))  # expect: OOM103


def padded_imported(bias, b, h, q, k):
    return pad(bias[:, None, None, :].expand(b, h, q, k), (1, 1), value=0.0)  # expect: OOM103
