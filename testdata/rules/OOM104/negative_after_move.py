# OOM104 negatives: after a move that surely copies (host to device) or a cast that surely changes
# the dtype, the value is a new full-size tensor, not the view; the op on it adds nothing.
import torch


def host_made(x, b, device):
    lam = torch.rand(b)[:, None].expand(b, 64).to(device)
    return 1 - lam


def surely_cast(x, b):
    lam = torch.rand(b, dtype=torch.float64)[:, None].expand(b, 64)
    lam = lam.to(torch.float32)
    return 1 - lam
