# OOM101 cast-after-expand of a stepped `torch.arange` (a 1-d tensor of ceil((end - start) / step)).
import torch


def even_positions(n, b):
    pos = torch.arange(0, n, 2)
    return pos.unsqueeze(0).expand(b, -1).float()  # expect: OOM101


def strided_keywords(n, b, device):
    pos = torch.arange(1, n, 4, device=device, dtype=torch.long)
    return pos[None, :].expand(b, -1).float()  # expect: OOM101


def unknown_step(n, b, s):
    pos = torch.arange(0, n, s)
    return pos[None, :].expand(b, -1).float()  # expect: OOM101
