# OOM121 repeat-instead-of-expand: a repeat read only by `masked_select`. torch documents its input
# and mask as broadcastable: the elements selected, in the broadcast shape's order, are the same
# for a stride-0 view as for its copy (fairchem's grid-cell neighbour search).
import torch


def neighbour_targets(num_atoms, num_cells, per_cell, source_index):
    target = torch.arange(num_atoms).view(-1, 1, 1).repeat(1, num_cells, per_cell)  # expect: OOM121
    pad_mask = source_index.ne(-1)
    return torch.masked_select(target, pad_mask)


def method_form(scores, text_mask, num_queries):
    mask = text_mask.unsqueeze(1).repeat(1, num_queries, 1)  # expect: OOM121
    return scores.masked_select(mask)
