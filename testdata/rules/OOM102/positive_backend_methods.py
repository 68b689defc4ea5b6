# OOM102 device-move-after-expand: backend methods and pinning, on values whose placement is
# known (made on the host, or on a device for `.cpu()`).
import numpy as np
import torch


def cuda_mask(lengths, b, h, q, s):
    mask = torch.arange(s)[None, :] < torch.tensor(lengths)[:, None]
    return mask[:, None, None, :].expand(b, h, q, -1).cuda()  # expect: OOM102


def cpu_hidden(hidden_size, batch_size, seq_len, device):
    # `[B, S, D]` made on the device: a hidden-size tensor (`[B, S]` position ids would be too
    # small to report).
    hidden = torch.zeros(hidden_size, device=device).expand(batch_size, seq_len, -1)
    return hidden.cpu()  # expect: OOM102


def npu_mask(mask_np: np.ndarray, b, q):
    m = torch.from_numpy(mask_np)[:, None, :].expand(b, q, -1)
    return m.npu()  # expect: OOM102


def xpu_mask(b, q, s):
    return torch.ones(b, s, dtype=torch.bool).unsqueeze(1).expand(b, q, -1).xpu()  # expect: OOM102


def mps_mask(b, q, s):
    return torch.zeros(b, s).unsqueeze(1).expand(b, q, -1).mps()  # expect: OOM102


def pinned_then_moved_scores(seq_len, batch_size):
    # Moved after pinning: the move of the broadcast view itself is the finding, not the pinning.
    scores = torch.zeros(seq_len, seq_len)[None].expand(batch_size, seq_len, seq_len)
    return scores.cuda()  # expect: OOM102
