# OOM102 device-move-after-expand: backend methods and pinning.
import torch


def cuda_mask(mask, b, h, q):
    return mask[:, None, None, :].expand(b, h, q, -1).cuda()  # expect: OOM102


def cpu_hidden(hidden_bias, batch_size, seq_len):
    # `[B, S, D]`: a hidden-size tensor (`[B, S]` position ids would be too small to report).
    hidden = hidden_bias.expand(batch_size, seq_len, -1)
    return hidden.cpu()  # expect: OOM102


def npu_mask(mask, b, q):
    m = mask[:, None, :].expand(b, q, -1)
    return m.npu()  # expect: OOM102


def xpu_mask(mask, b, q):
    return mask.unsqueeze(1).expand(b, q, -1).xpu()  # expect: OOM102


def mps_mask(mask, b, q):
    return mask.unsqueeze(1).expand(b, q, -1).mps()  # expect: OOM102


def pinned_scores(seq_len, batch_size):
    scores = torch.zeros(seq_len, seq_len)[None].expand(batch_size, seq_len, seq_len)
    return scores.pin_memory()  # expect: OOM102
