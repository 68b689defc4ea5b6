# OOM121 negatives for `repeat_interleave` and `tile`: the counts are a tensor, the dim is not
# given, or the copy is needed. (A repeated dim of unknown size is a "may": positive_may_unit_dim.py.)
import torch


def per_row_counts(image_embed, dense_prompt, lengths):
    assert image_embed.shape[0] == 1
    counts = torch.tensor(lengths)
    return torch.repeat_interleave(image_embed, counts, dim=0) + dense_prompt


def flattened(image_embed, dense_prompt, n_masks):
    assert image_embed.shape[0] == 1
    return torch.repeat_interleave(image_embed, n_masks) + dense_prompt


def written_after(image_embed, n_masks):
    assert image_embed.shape[0] == 1
    src = torch.repeat_interleave(image_embed, n_masks, dim=0)
    src[0] = 0
    return src


def tile_unknown_rank(x, table, n):
    # tile pads its counts on the left: without the rank, which dim grows is not known.
    return x * table.unsqueeze(0).tile(n, 1)
