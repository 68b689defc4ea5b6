# OOM102 device-move-after-expand: backend methods and pinning.
import torch


def cuda_mask(mask, b, h, q):
    return mask[:, None, None, :].expand(b, h, q, -1).cuda()  # expect: OOM102


def cpu_positions(position_ids, batch_size):
    position_ids = position_ids.expand(batch_size, -1)
    return position_ids.cpu()  # expect: OOM102


def npu_mask(mask, b, q):
    m = mask[:, None, :].expand(b, q, -1)
    return m.npu()  # expect: OOM102


def xpu_mask(mask, b, q):
    return mask.unsqueeze(1).expand(b, q, -1).xpu()  # expect: OOM102


def mps_mask(mask, b, q):
    return mask.unsqueeze(1).expand(b, q, -1).mps()  # expect: OOM102


def pinned_positions(seq_len, batch_size):
    pos = torch.arange(seq_len)[None, :].expand(batch_size, seq_len)
    return pos.pin_memory()  # expect: OOM102
