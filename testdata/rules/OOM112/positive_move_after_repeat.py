# OOM112 device-move-after-repeat: the repeated copy crosses the bus instead of the small source,
# for values made on the host (no `device=`, `torch.from_numpy`, `torch.tensor(list)`, `.cpu()`).
import numpy as np
import torch


def repeated_positions_to_device(seq_len, batch_size, device):
    position_ids = torch.arange(seq_len)[None, :]
    position_ids = position_ids.repeat(batch_size, 1)
    return position_ids.to(device)  # expect: OOM112


def beams_to_cuda(token_lists, num_beams):
    input_ids = torch.tensor(token_lists)
    return input_ids.repeat_interleave(num_beams, dim=0).cuda()  # expect: OOM112


def cfg_latents_mask(mask_np: np.ndarray, latents):
    mask = torch.from_numpy(mask_np)
    mask = torch.cat([mask] * 2)
    return mask.to(latents.device)  # expect: OOM112


def tiled_pinned(table, n):
    return torch.tile(table.cpu(), (n, 1)).pin_memory()  # expect: OOM112


def repeated_like(bias_list, scores, heads):
    bias = torch.tensor(bias_list)[None, None]
    bias = bias.repeat(1, heads, 1, 1)
    return bias.type_as(scores)  # expect: OOM112
