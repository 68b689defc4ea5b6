# OOM121: a repeat read through a view that only reorders its dims or adds a unit dim
# (`permute`, `transpose`, `.mT`, `unsqueeze`), and then only by broadcasting: the same view of an
# `expand` reads the same values (stride 0 on the same dims), so the copy is not needed. The
# pairwise-difference idiom `r - r.permute(0, 2, 1)` of metric-learning losses, and a padding mask
# and-ed with its own transpose.
import torch


def pairwise_rank(sims, n, temperature):
    sims_repeat = sims.unsqueeze(dim=1).repeat(1, n, 1)  # expect: OOM121
    sims_diff = sims_repeat - sims_repeat.permute(0, 2, 1)
    return torch.sigmoid(sims_diff / temperature).sum(-1)


def square_padding_mask(attention_mask, batch_size, seq_len):
    mask_1 = attention_mask.view(batch_size, 1, 1, seq_len).repeat(1, 1, seq_len, 1)  # expect: OOM121
    mask_2 = mask_1.transpose(2, 3)
    return mask_1 & mask_2


def against_matrix_transpose(scores, n):
    tiled = scores.unsqueeze(1).repeat(1, n, 1)  # expect: OOM121
    return torch.maximum(tiled, tiled.mT)
