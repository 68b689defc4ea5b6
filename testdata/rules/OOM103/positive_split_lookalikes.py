# OOM103: the look-alikes of negative_written_through_split.py. Parts that are only read, a write
# to a part of another tensor, and a string's `split` leave the copy unneeded: still reported.
import torch


def parts_only_read(alpha, batch_size, seq_len):
    alpha_ = alpha[:, None, :].expand(batch_size, seq_len, seq_len).contiguous()  # expect: OOM103
    lower, upper = alpha_.unbind(0)
    return torch.softmax(alpha_, dim=-1), lower + upper


def other_tensor_written(base, other, batch_size, num_heads, seq_len):
    grid = base[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).clone()  # expect: OOM103
    left, right = other.chunk(2, dim=-1)
    right[..., 0] = 0
    return torch.floor(grid).long()


def text_split(base, spec, batch_size, num_heads, seq_len):
    grid = base[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).clone()  # expect: OOM103
    name, value = spec.split("=")
    return torch.floor(grid).long(), name, value
