# Enlarged over the batch only, but the source's every dim is known (`[1, 2, H, W]` noise): the
# figure decides, and at the defaults `[B, 2, H, W]` float32 is 16 MiB.
import torch


def elastic_noise(batch_size, height, width):
    noise = torch.rand(1, 2, height, width)
    noise = noise.expand(batch_size, 2, height, width)
    return noise * 2 - 1  # expect: OOM104
