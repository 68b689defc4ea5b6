# Not OOM103 (OOM131 claims it when selected): a `.clone()` of a broadcast view stored in a
# container the function returns hands its callers memory of their own, as a returned `.clone()`
# does. (Look-alikes that stay OOM103: positive_clone_in_container.py.)
import torch


def load_sample(frames, condition, batch_size, time_steps):
    out = {}
    out["target"] = frames.float()
    cond = condition.expand(batch_size, -1, time_steps, -1)
    out["condition"] = cond.clone()
    return out


def load_pair(frames, condition, batch_size, time_steps):
    pair = [frames.float(), None]
    pair[1] = condition.expand(batch_size, -1, time_steps, -1).clone()
    return pair
