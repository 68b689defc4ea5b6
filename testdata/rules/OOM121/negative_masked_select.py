# Not OOM121: the look-alikes of positive_masked_select.py. A repeat whose merged view is selected
# (`.view(-1)` needs the copy: an expand cannot be merged), and one written in place before it is
# selected, are needed copies.
import torch


def merged_then_selected(index, num_cells, mask):
    index = index.view(-1, 1).repeat(1, num_cells).view(-1)
    return torch.masked_select(index, mask)


def written_then_selected(num_atoms, num_cells, per_cell, source_index, offset):
    target = torch.arange(num_atoms).view(-1, 1, 1).repeat(1, num_cells, per_cell)
    target += offset
    return torch.masked_select(target, source_index.ne(-1))
