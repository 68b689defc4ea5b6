# Look-alike of not_a_finding/tiny_per_element_matrices.py: the starred dims are a sequence's and
# a grid's, not the batch's, so the copy is not a few copies per example: reported.
import torch


def pair_table(table, seq_dims):
    pairs = table.view(1, 1, -1).expand(*seq_dims, -1)
    pairs = pairs.contiguous()  # expect: OOM103
    return pairs.sum()


def grid_table(table, grid_shape):
    grid = table.view(1, 1, -1).expand(*grid_shape, -1).clone()  # expect: OOM103
    return grid.mean()
