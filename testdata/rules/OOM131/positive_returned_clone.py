# OOM131: a returned `.clone()` of a broadcast view: callers get memory of their own, which the
# function cannot know they do not write.
import torch


def grayscale_to_rgb(image: torch.Tensor, batch_size, height, width) -> torch.Tensor:
    return image.expand(batch_size, 3, height, width).clone()  # expect: OOM131


def load_sample(frames, condition, batch_size, time_steps):
    # The same, stored in a dict the function returns.
    out = {"target": frames.float()}
    out["condition"] = condition.expand(batch_size, -1, time_steps, -1).clone()  # expect: OOM131
    return out
