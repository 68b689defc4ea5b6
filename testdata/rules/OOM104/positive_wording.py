# Findings whose wording must stay exact: a parenthesized receiver keeps its parentheses in the
# help, a line continuation does not show, and two findings on one line name their receivers.
import torch


def gaussian(window_size, batch_size):
    x = (torch.arange(window_size) - window_size // 2).expand(batch_size, -1)
    return torch.exp(-x.pow(2.0))  # expect: OOM104


def continued(mask, b, h):
    m = mask[:, None] \
        .expand(b, h, -1)
    return m * 2.0  # expect: OOM104


def rotary(freqs, x):
    cos = freqs.cos()[None].expand(x.shape[0], -1, -1)
    sin = freqs.sin()[None].expand(x.shape[0], -1, -1)
    return cos * 2.0, sin * 2.0  # expect: OOM104


def sprint(t, latents):
    timestep = t.expand(latents.shape[0])
    return torch.sin(timestep) / (torch.cos(timestep) + torch.sin(timestep))  # expect: OOM104
