# OOM112 device-move-after-repeat: the repeated copy crosses the bus instead of the small source,
# for values made on the host (no `device=`, `torch.from_numpy`, `torch.tensor(list)`, `.cpu()`).
import numpy as np
import torch


def repeated_hidden_to_device(seq_len, hidden_size, batch_size, device):
    hidden = torch.zeros(seq_len, hidden_size)[None]
    hidden = hidden.repeat(batch_size, 1, 1)
    return hidden.to(device)  # expect: OOM112


def heads_to_cuda(mask_lists, num_heads):
    mask = torch.tensor(mask_lists)
    return mask.repeat_interleave(num_heads, dim=0).cuda()  # expect: OOM112


def mask_per_layer(mask_np: np.ndarray, num_layers, latents):
    mask = torch.from_numpy(mask_np)
    mask = torch.cat([mask] * num_layers)
    return mask.to(latents.device)  # expect: OOM112


def tiled_to_cuda(table, n):
    # The look-alike of `tiled_pinned` (not_a_finding/false_alarms): a real move of the tiled copy.
    return torch.tile(table.cpu(), (n, 1)).cuda()  # expect: OOM112


def repeated_like(q_len, k_len, scores, batch_size, heads):
    bias = torch.zeros(q_len, k_len)[None, None]
    bias = bias.repeat(batch_size, heads, 1, 1)
    return bias.type_as(scores)  # expect: OOM112


def frames_tiled(video, num_frames, device):
    # Look-alike of numpy's `repeat(3, -3)`: torch counts, one per dim, none negative.
    if video.shape[-3] == 1:
        video = video.repeat(num_frames, 1, 1, 1)
    return video.to(device)  # expect: OOM112
