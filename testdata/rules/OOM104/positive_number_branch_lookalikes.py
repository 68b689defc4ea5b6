# OOM104: the look-alikes of negative_number_branch.py. The branch for tensors, a test of another
# name, and a tuple that admits a tensor type keep the comparison on the enlarged tensor: reported.
import numbers

import torch


def is_zero(x):
    if isinstance(x, numbers.Number):
        return False
    return x == 0  # expect: OOM104


def other_name_tested(x, y):
    if isinstance(y, int):
        return x == 0  # expect: OOM104
    return False


def tensor_admitted(x):
    if isinstance(x, (int, torch.Tensor)):
        return x == 0  # expect: OOM104
    return False


def mask_zero(scale, scores, batch_size, num_heads, seq_len):
    full = scale[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len)
    return is_zero(full), other_name_tested(full, 3), tensor_admitted(full)
