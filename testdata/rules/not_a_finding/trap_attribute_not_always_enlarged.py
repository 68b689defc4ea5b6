# Look-alike traps: an attribute that is not enlarged by every store in the class, or is read
# where it is not known, is not reported when converted in another method.
import torch
from torch import nn


class ReassignedUnknown(nn.Module):
    def __init__(self, bias, batch_size, num_heads, seq_len):
        super().__init__()
        self.bias = bias[None, None, :, :].expand(batch_size, num_heads, seq_len, seq_len)

    def load(self, path):
        self.bias = torch.load(path)

    def forward(self, scores):
        return scores + self.bias.to(scores.dtype)


class ClearedToNone(nn.Module):
    def __init__(self, bias, batch_size, num_heads, seq_len):
        super().__init__()
        self.bias = bias[None, None, :, :].expand(batch_size, num_heads, seq_len, seq_len)

    def clear(self):
        self.bias = None

    def forward(self, scores):
        return scores + self.bias.float()


class MaybeEnlarged(nn.Module):
    def __init__(self, bias, batch_size, seq_len, share):
        super().__init__()
        self.bias = bias[None, :, :].expand(batch_size, seq_len, seq_len) if share else bias

    def forward(self, scores):
        return scores + self.bias.float()


class ClassDefault(nn.Module):
    bias = None

    def build(self, bias, batch_size, num_heads, seq_len):
        self.bias = bias[None, None, :, :].expand(batch_size, num_heads, seq_len, seq_len)

    def forward(self, scores):
        return scores + self.bias.half()


class OtherObject(nn.Module):
    def __init__(self, bias, batch_size, num_heads, seq_len):
        super().__init__()
        self.bias = bias[None, None, :, :].expand(batch_size, num_heads, seq_len, seq_len)

    def forward(self, other, scores):
        return scores + other.bias.float()


class AugmentedElsewhere(nn.Module):
    def __init__(self, bias, batch_size, num_heads, seq_len):
        super().__init__()
        self.bias = bias[None, None, :, :].expand(batch_size, num_heads, seq_len, seq_len)

    def shift(self, delta):
        self.bias += delta

    def forward(self, scores):
        return scores + self.bias.float()


class RepeatedKernelBuffer(nn.Module):
    # A repeated buffer is a real tensor allocated once (here a small depthwise kernel); only
    # broadcast views flow between methods.
    def __init__(self, channels, window):
        super().__init__()
        self.register_buffer("kernel", torch.arange(-window, window + 1).repeat(channels, 1, 1))

    def forward(self, x):
        return torch.nn.functional.conv1d(x, self.kernel.to(x.device), groups=x.shape[1])
