# OOM101 cast-after-expand: position ids and rotary inputs (arange is int64, so a float cast is real).
import torch


def rotary_positions(seq_len, batch_size, device):
    position_ids = torch.arange(seq_len, device=device).unsqueeze(0).expand(batch_size, -1)
    return position_ids.float()  # expect: OOM101


def half_positions(seq_len, batch_size, device):
    pos = torch.arange(seq_len, device=device)[None, :].expand(batch_size, seq_len)
    return pos.half()  # expect: OOM101


def positions_to_literal_dtype(position_ids, batch_size):
    position_ids = position_ids.expand(batch_size, -1)
    return position_ids.to(torch.float32)  # expect: OOM101


def token_type_ids(buffered_token_type_ids, batch_size, seq_length):
    # BERT-style buffer expanded to the batch, then cast to int32 for a kernel.
    ids = buffered_token_type_ids[:, :seq_length].expand(batch_size, seq_length)
    return ids.int()  # expect: OOM101


def broadcast_to_positions(pos, shape):
    return torch.broadcast_to(pos, shape).double()  # expect: OOM101
