# Look-alikes of a repeat read by a sampler (positive_sampler.py) where the copy stays:
# `torch.normal` with an expanded `std` allocates more on CPU than with its copy (the better
# spelling, `torch.normal(0, s, size=shape)`, is no reorder), a repeat whose dims are not 1, and
# a copy the sampler's result is written into.
import torch


def noise(stdev, shape):
    s = torch.tensor(stdev).repeat(shape)
    return torch.normal(0, s)


def tiled(probs, n):
    p = probs.repeat(n, 1)
    return torch.bernoulli(p)


def refill(keep_prob, batch_size, seq_len):
    p = keep_prob.unsqueeze(0).unsqueeze(0).repeat(batch_size, seq_len, 1)
    p[:, 0] = 1.0
    return torch.bernoulli(p)
