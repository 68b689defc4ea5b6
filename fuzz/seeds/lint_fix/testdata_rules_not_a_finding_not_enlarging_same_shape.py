# Not a finding: expanding a tensor to its own shape is not an enlargement.
import torch


def own_shape(x):
    return x.expand(x.shape).float()


def own_size(x, dtype):
    y = x.expand(*x.size())
    return y.to(dtype)


def expand_as_self(x):
    return x.expand_as(x).bool()


def own_size_call(x):
    return x.expand(x.size()).half()
