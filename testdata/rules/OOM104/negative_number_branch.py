# OOM104 negatives: a branch that `isinstance` proves to hold a Python number (pyro's
# `is_identically_zero`): `x == 0` there compares a number, whatever the callers pass, since a
# tensor is no `numbers.Number`, `int` or `float`.
import numbers
from numbers import Real

import torch


def is_identically_zero(x):
    if isinstance(x, numbers.Number):
        return x == 0
    return False


def is_one(x):
    if isinstance(x, (int, float)):
        return x == 1
    elif isinstance(x, Real):
        return x == 1.0
    return False


def mask_zero(scale, scores, batch_size, num_heads, seq_len):
    full = scale[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len)
    return is_identically_zero(full), is_one(full)
