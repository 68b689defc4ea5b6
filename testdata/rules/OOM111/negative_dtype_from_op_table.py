# Not OOM111: the dtype of a torch function's result comes from what torch says of the op. The op
# table gives `bernoulli` (function and method) the dtype of its input, so a tensor made with
# `dtype=dtype` keeps it through them, and `.to(dtype)` after the repeat converts nothing.
import torch


def block_sparse(rows, cols, block, sparsity, dtype):
    mask = torch.bernoulli(torch.full((rows, cols), 1 - sparsity, dtype=dtype))
    mask = torch.repeat_interleave(mask, block, dim=0)
    return mask.to(dtype).sum()


def block_sparse_method(rows, cols, block, sparsity, dtype):
    mask = torch.full((rows, cols), 1 - sparsity, dtype=dtype).bernoulli()
    mask = mask.repeat_interleave(block, dim=1)
    return mask.to(dtype).sum()
