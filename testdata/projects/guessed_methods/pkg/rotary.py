import torch
from torch import nn


def rotate(t, freqs):
    return t * freqs.cos() + t.flip(-1) * freqs.sin()  # expect: OOM113


class Rotary(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.inv_freq = torch.ones(dim)

    def forward(self, pos):
        return torch.einsum("bn,d->bnd", pos, self.inv_freq)

    @staticmethod
    def apply_rotary(t, freqs):
        return rotate(t, freqs)

    def scaled(self, t, freqs, scale=2.0):
        return t * freqs.exp() * scale  # expect: OOM113

    # Called only with a keyword it has no parameter for: not this method.
    def shifted(self, t, freqs):
        return t.abs() * freqs.abs()

    # Two classes define `mix`: which one runs is not known.
    def mix(self, t, freqs):
        return t * freqs.sigmoid()


class Other(nn.Module):
    def mix(self, t, freqs):
        return t * freqs.tanh()

    # A name `nn.Module` has: the object may be any module.
    def half(self, t):
        return t.cos()


def decay(t, freqs, rate):
    return t * freqs.exp().mul(rate)  # expect: OOM113
