# Not a finding: torch.arange(n) is int64, so .long() after the expand is a no-op.
import torch


def position_ids(seq_len, batch_size, device):
    pos = torch.arange(seq_len, device=device).unsqueeze(0).expand(batch_size, -1)
    return pos.long()


def position_ids_to_int64(seq_len, batch_size):
    pos = torch.arange(seq_len)[None, :].expand(batch_size, seq_len)
    return pos.to(torch.int64)
