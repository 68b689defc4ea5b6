# Not a finding: torch.zeros(...) is float32 by default, so .float() is a no-op.
import torch


def zero_bias(batch_size, num_heads, q_len, k_len):
    bias = torch.zeros(1, 1, q_len, k_len)
    bias = bias.expand(batch_size, num_heads, -1, -1)
    return bias.float()


def zero_bias_to_float32(batch_size, k_len):
    return torch.zeros(k_len)[None, :].expand(batch_size, -1).to(torch.float32)
