# Helpers in another file than their callers (see model.py): what they return is known from their
# summaries. Nothing here is a finding by itself.
import torch


def key_padding_mask(padded_input, pad_idx):
    # bool on every path: `.eq`, a device move and `.detach()` keep it, `.bool()` makes it.
    mask = padded_input.eq(pad_idx).to(padded_input.device)
    if len(padded_input.shape) > 2:
        mask = mask.float().prod(dim=-1).bool()
        return mask.detach()
    return mask.detach()


def mask_from_lengths(lengths, max_len=None):
    if max_len is None:
        max_len = torch.max(lengths).item()
    seq_range = torch.arange(max_len, device=lengths.device, dtype=lengths.dtype)
    return ~(seq_range.unsqueeze(0) < lengths.unsqueeze(1))


def stream_bias(seq_len, ngram, device, dtype):
    # Built in the dtype it is given: the `dtype` argument's, whatever it is.
    rows = torch.arange(seq_len, device=device).view(1, seq_len, 1)
    cols = torch.arange(seq_len, device=device).view(1, 1, seq_len)
    left = (cols - rows >= 1).expand(ngram, seq_len, seq_len)
    right = rows != cols
    neg_inf = torch.full((), torch.finfo(dtype).min, dtype=dtype, device=device)
    zero = torch.zeros((), dtype=dtype, device=device)
    return torch.cat([torch.where(left, neg_inf, zero), torch.where(right, neg_inf, zero)], dim=2)
