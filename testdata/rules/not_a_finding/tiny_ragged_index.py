# `repeat_interleave` by a tensor of per-row counts over a 1-d index (`arange`) makes a flat
# ragged index list, `[total]` int64: an op on it is tiny at any realistic size (sentence
# transformers' padding of variable-length token lists).
import torch


def pad_token_lists(tensors, lengths):
    max_len = int(lengths.max())
    flat = torch.cat(tensors, dim=0)
    total = len(flat)
    starts = torch.cumsum(lengths, 0) - lengths
    positions = torch.arange(total, device=flat.device) - torch.repeat_interleave(starts, lengths, output_size=total)
    rows = torch.repeat_interleave(torch.arange(len(tensors), device=flat.device), lengths, output_size=total)
    padded = flat.new_zeros(len(tensors) * max_len, flat.shape[-1])
    padded.index_copy_(0, rows * max_len + positions, flat)
    return padded.view(len(tensors), max_len, flat.shape[-1])


def segment_ids(lengths):
    ids = torch.arange(lengths.shape[0]).repeat_interleave(lengths)
    return ids * 2
