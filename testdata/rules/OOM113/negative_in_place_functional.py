# OOM113 look-alikes of positive_function_forms.py: a functional activation called with
# `inplace=True` writes its input and returns it, so no second enlarged tensor is made (the copy is
# then needed, as an `expand` view cannot be written). `inplace=False` is the positive look-alike.
import torch.nn.functional as F


def activate_in_place(h, n: int):
    tiled = h.repeat(1, n, 1)
    return F.relu(tiled, inplace=True)


def activate_in_place_by_flag(h, n: int, inplace: bool):
    tiled = h.repeat(1, n, 1)
    return F.leaky_relu(tiled, 0.2, inplace=inplace)


def activate_out_of_place(h, n: int):
    tiled = h.repeat(1, n, 1)
    return F.relu(tiled, inplace=False)  # expect: OOM113
