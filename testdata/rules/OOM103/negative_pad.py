# OOM103 negatives: padding the small tensor, or a value that was never enlarged.
import torch
import torch.nn.functional as F


def pad_then_expand(mask, b, h, q):
    m = F.pad(mask, (0, 1))
    return m[:, None, None, :].expand(b, h, q, -1)


def pad_plain(x):
    return F.pad(x, (0, 1))


def pad_of_repeat(mask, b):
    # A repeated copy is already full size: padding it is not a broadcast materialized.
    m = mask[None].repeat(b, 1)
    return F.pad(m, (0, 1))
