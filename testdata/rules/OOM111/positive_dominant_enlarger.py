# The help names the enlargement that makes the full size: here the caller's repeat, not the
# helper's small one (the IP-adapter mask idiom).
import torch


def downsample(mask, batch_size):
    return mask.view(1, -1, 1).repeat(batch_size, 1, 1)


def attn(mask, batch_size, dim, dtype):
    m = downsample(mask, batch_size).repeat(1, 1, dim)
    return m.to(dtype)  # expect: OOM111
