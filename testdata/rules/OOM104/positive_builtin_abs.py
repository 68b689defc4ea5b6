# Python's `abs(t)` of a tensor calls `Tensor.__abs__`, which is `torch.abs(t)`: on a broadcast
# view it writes the full expanded tensor, as `t.abs()` does (Captum's DeepLift reads its
# doubled input difference this way).
import torch


def rescale(delta, grad, batch_size, seq_len, hidden_size, eps):
    wide = delta.expand(batch_size, seq_len, hidden_size)
    near_zero = abs(wide) < eps  # expect: OOM104
    return torch.where(near_zero, grad, grad / wide)
