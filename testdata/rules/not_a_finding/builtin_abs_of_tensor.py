# Builtin `abs`/`min`/`max`/`round` of a tensor is a tensor, not a Python number: an op with it
# is not a scalar op that could be hoisted above the enlarger.
import torch


def attenuation(tr, xyz):
    exp_lo = abs(torch.floor(xyz / 2))  # tensor [N, 3]
    # The repeat is only read by broadcasting (an OOM121 pattern), but it is small at realistic
    # sizes (under min-static-bytes), so nothing is reported here.
    t_lo = tr[:, ::2].unsqueeze(1).repeat(1, xyz.shape[0], 1)
    return torch.prod(t_lo**exp_lo, dim=-1)


def clipped(weights, n, xyz):
    limit = max(torch.zeros(1), torch.amax(xyz))
    w = weights.unsqueeze(0).expand(n, -1)
    return w * limit


def rounded(weights, n, xyz):
    r = round(torch.mean(xyz))
    w = weights.unsqueeze(0).expand(n, -1)
    return w + r


def smallest(weights, n, a, b):
    w = weights.unsqueeze(0).expand(n, -1)
    return w - min(torch.abs(a), torch.abs(b))
