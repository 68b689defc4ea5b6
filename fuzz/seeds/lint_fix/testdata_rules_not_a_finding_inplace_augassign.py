# Not a finding: the cast result is updated with an augmented assignment (in place for tensors).
import torch


def biased_positions(seq_len, batch_size, offsets):
    pos = torch.arange(seq_len)[None, :].expand(batch_size, -1).float()
    pos += offsets[:, None]
    return pos


def scaled_mask(mask, bsz, q_len, dtype):
    m = mask[:, None, :].expand(bsz, q_len, -1).to(dtype)
    m *= 0.5
    return m
