# OOM112 device-move-after-repeat: the repeated copy crosses the bus instead of the small source.
import torch


def repeated_positions_to_device(position_ids, batch_size, device):
    position_ids = position_ids.repeat(batch_size, 1)
    return position_ids.to(device)  # expect: OOM112


def beams_to_cuda(input_ids, num_beams):
    return input_ids.repeat_interleave(num_beams, dim=0).cuda()  # expect: OOM112


def cfg_latents_mask(mask, latents):
    mask = torch.cat([mask] * 2)
    return mask.to(latents.device)  # expect: OOM112


def tiled_pinned(table, n):
    return torch.tile(table, (n, 1)).pin_memory()  # expect: OOM112


def repeated_like(bias, scores, heads):
    bias = bias.repeat(1, heads, 1, 1)
    return bias.type_as(scores)  # expect: OOM112
