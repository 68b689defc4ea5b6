# Not a finding: every expand/repeat argument is 1 or -1, nothing is enlarged.
import torch


def keep_shape(mask):
    m = mask.expand(1, -1)
    return m.float()


def keep_shape_4d(mask, dtype):
    return mask.expand(-1, -1, -1, -1).to(dtype)


def repeat_once(mask):
    m = mask.repeat(1, 1)
    return m.half()


def repeat_once_device(mask, device):
    return mask.repeat(1, 1, 1).to(device)
