# OOM112 negatives.
import torch


def move_then_repeat(position_ids, batch_size, device):
    return position_ids.to(device).repeat(batch_size, 1)


def all_ones(position_ids, device):
    return position_ids.repeat(1, 1).to(device)


def cat_distinct(a, b, device):
    return torch.cat([a, b]).to(device)


def move_other_tensor(input_ids, hidden_states, num_beams):
    ids = input_ids.repeat_interleave(num_beams, dim=0)
    return ids, hidden_states.to(ids.device)


def numpy_axis_repeat(video, device):
    # Torch's repeat counts are sizes (a negative one raises): `repeat(3, -3)` is numpy's
    # `repeat(repeats, axis)` of an array, not a torch copy.
    if video.shape[-3] == 1:
        video = video.repeat(3, -3)
    return video.to(device)
