# OOM121 look-alikes of positive_elementwise_map.py where the repeat's copy is needed: the mapped
# copy is read by an op that does not broadcast (`torch.bmm` needs equal batch sizes), the map
# writes in place (`sigmoid_` into a stride-0 view fails), a layout copy is not a map
# (`.contiguous()` is written for the layout itself), or the mapped copy is returned whole.
import torch
import torch.nn.functional as F


def mapped_then_bmm(attn, z, heads: int):
    z = z.unsqueeze(1).repeat(1, heads, 1)
    return torch.bmm(attn, z.float())  # expect: OOM111


def mapped_in_place(scores, gate, n: int):
    g = gate.unsqueeze(1).repeat(1, n, 1)
    g.sigmoid_()
    return scores * g


def layout_copy(scores, gate, n: int):
    g = gate.unsqueeze(1).repeat(1, n, 1)
    return scores + g.contiguous()


def mapped_and_returned(gate, n: int):
    g = gate.unsqueeze(1).repeat(1, n, 1)
    return g.float()  # expect: OOM111


def functional_in_place(scores, gate, n: int):
    g = gate.unsqueeze(1).repeat(1, n, 1)
    g = F.relu(g, inplace=True)
    return scores + g


def function_then_bmm(attn, z, heads: int):
    z = z.unsqueeze(1).repeat(1, heads, 1)
    return torch.bmm(attn, torch.exp(z))  # expect: OOM113
