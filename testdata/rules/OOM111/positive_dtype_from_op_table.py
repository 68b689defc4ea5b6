# OOM111: the look-alikes of negative_dtype_from_op_table.py. The op keeps its input's dtype, but
# the cast asks for another one: it converts the repeated copy.
import torch


def block_sparse_other_dtype(rows, cols, block, sparsity, dtype, compute_dtype):
    mask = torch.bernoulli(torch.full((rows, cols), 1 - sparsity, dtype=dtype))
    mask = torch.repeat_interleave(mask, block, dim=0)
    return mask.to(compute_dtype).sum()  # expect: OOM111


def block_sparse_half(rows, cols, block, sparsity):
    mask = torch.bernoulli(torch.full((rows, cols), 1 - sparsity))
    mask = torch.repeat_interleave(mask, block, dim=0)
    return mask.half().sum()  # expect: OOM111
