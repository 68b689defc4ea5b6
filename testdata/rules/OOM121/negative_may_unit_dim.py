# OOM121 look-alikes of the "may": the repeated dim is known not to be 1, is not the leading dim,
# the count is a number written out (a tiling factor), no reader combines the copy with a tensor
# of the full shape (only numbers, another repeat, a gather), or the copy is read by more than a
# broadcast (passed on, stored, written in place, concatenated).
import torch
from torch import nn


def known_not_unit(x, n, dim):
    pair = torch.zeros(2, 8, dim)
    return x + pair.repeat(n, 1, 1)


def literal_factor(freqs, x):
    # `repeat(1, 2)` of a half-width table: a fixed tiling, the dim is not 1.
    return x * freqs.repeat(1, 2)


class Passed(nn.Module):
    def __init__(self, mixer):
        super().__init__()
        self.mixer = mixer

    def forward(self, image_embed, dense_prompt, tokens):
        pos = torch.repeat_interleave(image_embed, tokens.shape[0], dim=0)
        return self.mixer(pos + dense_prompt, pos)

    def stored(self, image_embed, n):
        self.cache = image_embed.repeat(n, 1, 1)
        return self.cache


def written_in_place(image_embed, dense_prompt, n_masks):
    src = torch.repeat_interleave(image_embed, n_masks, dim=0)
    src += dense_prompt
    return src


def concatenated(image_embed, other, n_masks):
    src = image_embed.repeat_interleave(n_masks, dim=0)
    return torch.cat([src, other], dim=1) + other


def tiled(x, table, n):
    return x * table.tile(n, 1)


def inner_dim(scores, bias, num_heads):
    # dim 1 of `bias` is not known to be 1: an inner dim of 1 is made by the code, where it shows.
    bias = bias.repeat(1, num_heads, 1, 1)
    return scores + bias


def rope_tiled_over_frames(q, cos, repeat_factor):
    return q * cos.repeat(1, 1, repeat_factor, 1)


def both_repeated(past_values, loc, n):
    repeated_loc = loc.repeat_interleave(n, dim=0)
    return past_values.repeat_interleave(n, dim=0) - repeated_loc


def gathered_source(x, ids, n):
    src = x.repeat(n, 1, 1)
    return torch.gather(src, 1, ids)


def selected(mask, fill, scores, n):
    return torch.where(mask.repeat_interleave(n, dim=0), fill, scores)


def whole_shape_count(x, table, repeats):
    # One count held in a name may be a whole shape: which dim grows is not known.
    return x / table.repeat(repeats)


def numpy_axis(cost, scores, n):
    return cost * scores[None].repeat(n, axis=0)


def ragged_counts(queries, splits, data, index):
    # The repeats are a slice difference (per-query neighbour counts): a slice is never a Python
    # int, so they are a tensor of counts, one per row, and no `expand` gives the same values.
    num_reps = splits[1:] - splits[:-1]
    rep_queries = torch.repeat_interleave(queries, num_reps, dim=0)
    return rep_queries - data[index]


def ragged_counts_inline(queries, splits, data):
    return torch.repeat_interleave(queries, splits[1:] - splits[:-1], dim=0) - data
