# OOM102 negatives: moves the facts show to do nothing, and moves of unknown origin (not reported
# by OOM102: the sinks after them are, as "may").
import torch


def made_on_device(n, b, device):
    table = torch.zeros(n, device="cuda")
    return table[None].expand(b, n).cuda()


def unknown_origin(mask, x):
    return mask.unsqueeze(-1).expand_as(x).to(x.device)
