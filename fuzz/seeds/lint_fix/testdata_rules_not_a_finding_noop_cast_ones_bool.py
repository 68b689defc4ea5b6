# Not a finding: the tensor was created with dtype=torch.bool, so .bool() is a no-op.
import torch


def full_mask(batch_size, num_heads, q_len, k_len, device):
    mask = torch.ones(1, 1, q_len, k_len, dtype=torch.bool, device=device)
    mask = mask.expand(batch_size, num_heads, -1, -1)
    return mask.bool()
