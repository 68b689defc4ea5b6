# Helpers whose result's dtype is not known to their callers (model.py). Nothing here is a finding
# by itself.
import torch


def padding_mask_or_input(padded_input, pad_idx):
    # bool on one path only: the other returns the input, of any dtype.
    if pad_idx is None:
        return padded_input
    return padded_input.eq(pad_idx)


def lengths_mask(lengths, max_len):
    seq_range = torch.arange(max_len, device=lengths.device)
    # Float: `~` of a bool and then a float multiply.
    return ~(seq_range.unsqueeze(0) < lengths.unsqueeze(1)) * 1.0
