# OOM101 cast-after-expand: a broadcast to a shape held in one value, then cast. The shape is not
# known here, so nothing says the result is small: reported. (Position-id tensors expanded over the
# batch are `[B, S]`, tiny at realistic sizes: see not_a_finding/tiny_position_ids.py.)
import torch


def broadcast_to_positions(pos, shape):
    return torch.broadcast_to(pos, shape).double()  # expect: OOM101
