# OOM121 "may": a repeat of the leading dim whose size is not known here (a parameter), stretched
# to a size (not a number written out), whose copy only broadcasting ops read, one of them with a
# tensor that already has the full shape. If the dim is 1, `expand` gives the same values; the
# warning names that condition.
import torch
from torch import nn


class MaskHead(nn.Module):
    def __init__(self, mixer):
        super().__init__()
        self.mixer = mixer

    def predict(self, image_embed, dense_prompt, tokens):
        # The add writes a new tensor: what goes on to `self.mixer` is the sum, not the copy.
        src = torch.repeat_interleave(image_embed, tokens.shape[0], dim=0)  # expect: OOM121
        src = src + dense_prompt
        b, c, h, w = src.shape
        return self.mixer(src, tokens), (b, c, h, w)


def method_form(feature_map, weights, n_views):
    maps = feature_map.repeat(n_views, 1, 1, 1)  # expect: OOM121
    return maps * weights


def interleave_method(image_embed, dense_prompt, n_masks):
    return image_embed.repeat_interleave(n_masks, dim=0) - dense_prompt  # expect: OOM121


def other_dim_asserted(image_embed, dense_prompt, n_masks):
    # Only dim 1 is known to be 1; dim 0, the one repeated, may be 1.
    assert image_embed.shape[1] == 1
    return torch.repeat_interleave(image_embed, n_masks, dim=0) + dense_prompt  # expect: OOM121


def on_one_path(image_embed, dense_prompt, tokens, repeat_image):
    # The copy is made on one path only; the add after the join reads it there.
    if repeat_image:
        src = torch.repeat_interleave(image_embed, tokens.shape[0], dim=0)  # expect: OOM121
    else:
        src = image_embed
    return src + dense_prompt



def counted_from_a_slice(queries, splits, data):
    # Look-alike of the ragged counts: the count is the length of a slice, a Python int.
    num_reps = len(splits[1:])
    return torch.repeat_interleave(queries, num_reps, dim=0) - data  # expect: OOM121
