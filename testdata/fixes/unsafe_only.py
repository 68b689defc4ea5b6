import torch


def to_device(scores, mask_np, b, s, device):
    m = torch.from_numpy(mask_np)[:, None, :].expand(b, s, -1).to(device)
    return scores + m


def returned(mask, b, s):
    return mask[:, None, :].expand(b, s, -1).half()


def guessed_dtype(scores, mask, b, s, dtype):
    m = mask[:, None, :].expand(b, s, -1).to(dtype)
    return scores + m
