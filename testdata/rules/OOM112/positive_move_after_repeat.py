# OOM112 device-move-after-repeat: the repeated copy crosses the bus instead of the small source,
# for values made on the host (no `device=`, `torch.from_numpy`, `torch.tensor(list)`, `.cpu()`).
import numpy as np
import torch


def repeated_hidden_to_device(seq_len, hidden_size, batch_size, device):
    hidden = torch.zeros(seq_len, hidden_size)[None]
    hidden = hidden.repeat(batch_size, 1, 1)
    return hidden.to(device)  # expect: OOM112


def beams_to_cuda(token_lists, num_beams):
    input_ids = torch.tensor(token_lists)
    return input_ids.repeat_interleave(num_beams, dim=0).cuda()  # expect: OOM112


def cfg_latents_mask(mask_np: np.ndarray, latents):
    mask = torch.from_numpy(mask_np)
    mask = torch.cat([mask] * 2)
    return mask.to(latents.device)  # expect: OOM112


def tiled_pinned(table, n):
    return torch.tile(table.cpu(), (n, 1)).pin_memory()  # expect: OOM112


def repeated_like(q_len, k_len, scores, batch_size, heads):
    bias = torch.zeros(q_len, k_len)[None, None]
    bias = bias.repeat(batch_size, heads, 1, 1)
    return bias.type_as(scores)  # expect: OOM112
