# OOM113: `repeat_interleave` without a dim flattens its input and repeats each element, so its
# 1-D result's one dim is the grown one. A scan along it (`cumsum`, `cumprod`) gives other values
# than the scan of the source repeated afterwards: no reorder exists (speculative decoding's
# offsets `cumsum((seq_lens + n).repeat_interleave(n), dim=0)`). The positive look-alikes are in
# positive_scan_of_flat_interleave.py.
import torch


def draft_offsets(seq_lens, num_draft_tokens):
    return torch.cumsum((seq_lens + num_draft_tokens).repeat_interleave(num_draft_tokens), dim=0)


def draft_offsets_method(seq_lens, num_draft_tokens):
    return (seq_lens + num_draft_tokens).repeat_interleave(num_draft_tokens).cumsum(0)


def draft_products(scales, n):
    return scales.repeat_interleave(n).cumprod(dim=-1)
