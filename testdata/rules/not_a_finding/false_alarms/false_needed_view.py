# Review repro (unseen code), class: a copy the code needs. `.view(-1, n)` merges the broadcast dim,
# which only a dense copy allows (OOM131 when selected, never OOM103).
import torch


def cauchy_input(v, z, n):
    v = v.unsqueeze(-1).expand(-1, -1, n).contiguous()
    v = v.view(-1, n)
    return v @ z
