# OOM121: `repeat_interleave(n, dim=d)` and `tile` of a dim known to be 1 (written out, or asserted)
# whose copies are only broadcast: `expand` gives the same values.
import torch


def prompts_function_form(image_embed, dense_prompt, n_masks):
    assert image_embed.shape[0] == 1
    src = torch.repeat_interleave(image_embed, n_masks, dim=0)  # expect: OOM121
    return src + dense_prompt


def prompts_method_form(image_embed, dense_prompt, n_masks):
    assert image_embed.size(0) == 1
    return image_embed.repeat_interleave(n_masks, dim=0) + dense_prompt  # expect: OOM121


def tiled_row(x, batch_size, seq_len, hidden_size):
    row = torch.zeros(1, seq_len, hidden_size)
    rows = row.tile(batch_size, 1, 1)  # expect: OOM121
    return x * rows


def interleave_known_rank(x, n, dim):
    bias = torch.zeros(1, 8, dim)
    return x + bias.repeat_interleave(n, dim=0)  # expect: OOM121
