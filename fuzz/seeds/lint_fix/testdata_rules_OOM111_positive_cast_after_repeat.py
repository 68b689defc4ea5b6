# OOM111 cast-after-repeat: the repeat already copies; the cast then writes a second full-size tensor.
import torch


def repeated_mask(attention_mask, num_heads, dtype):
    # [b, k] -> [b * h, k], then cast
    mask = attention_mask.repeat(num_heads, 1)
    return mask.to(dtype)  # expect: OOM111


def interleaved_mask(attention_mask, num_heads):
    mask = attention_mask.repeat_interleave(num_heads, dim=0)
    return mask.float()  # expect: OOM111


def functional_interleave(position_ids, num_beams):
    ids = torch.repeat_interleave(position_ids, num_beams, dim=0)
    return ids.to(torch.float16)  # expect: OOM111


def tiled_bias(bias, batch_size):
    return bias.tile((batch_size, 1, 1)).half()  # expect: OOM111


def functional_tile(mask, batch_size):
    return torch.tile(mask, (batch_size, 1)).bool()  # expect: OOM111


def cfg_mask(attention_mask, dtype):
    # classifier-free guidance doubles the batch
    mask = torch.cat([attention_mask] * 2)
    return mask.to(dtype=dtype)  # expect: OOM111
