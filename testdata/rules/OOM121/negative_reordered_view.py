# OOM121 look-alikes of positive_reordered_view.py where the repeat's copy is needed: the
# reordered view is made contiguous, merged by `view`/`reshape`, or written in place; or the
# repeated dim is not a unit dim (a real tiling).
import torch


def permuted_then_contiguous(sims, n):
    sims_repeat = sims.unsqueeze(1).repeat(1, n, 1)
    flat = sims_repeat.permute(0, 2, 1).contiguous()
    return flat.view(-1, n)


def transposed_then_merged(mask, batch_size, seq_len):
    mask_1 = mask.view(batch_size, 1, 1, seq_len).repeat(1, 1, seq_len, 1)
    return mask_1.transpose(2, 3).reshape(batch_size, seq_len * seq_len)


def permuted_then_written(sims, n):
    sims_repeat = sims.unsqueeze(1).repeat(1, n, 1)
    out = sims_repeat.permute(0, 2, 1)
    out[:, 0] = 0
    return out - sims_repeat


def not_a_unit_dim(sims, n):
    tiled = sims.repeat(1, n, 1)
    return tiled - tiled.permute(0, 2, 1)
