# The function forms of `~` on a broadcast view write the full size; inverting the small tensor
# and expanding after gives the same values.
import torch


def inverted(keep, bsz, heads, q_len):
    mask = keep[:, None, None, :].expand(bsz, heads, q_len, -1)
    return torch.logical_not(mask)  # expect: OOM104


def bitwise(keep, bsz, heads, q_len):
    return torch.bitwise_not(keep[:, None, None, :].expand(bsz, heads, q_len, -1))  # expect: OOM104
