# OOM111 cast-after-repeat: the repeat already copies; the cast then writes a second full-size tensor.
import torch


def repeated_mask(attention_mask, num_heads, dtype):
    # [b, k] -> [b * h, k], then cast
    mask = attention_mask.repeat(num_heads, 1)
    return mask.to(dtype)  # expect: OOM111


def interleaved_mask(attention_mask, num_heads):
    mask = attention_mask.repeat_interleave(num_heads, dim=0)
    return mask.float()  # expect: OOM111


def functional_interleave(attention_mask, num_heads):
    mask = torch.repeat_interleave(attention_mask, num_heads, dim=0)
    return mask.to(torch.float16)  # expect: OOM111


def tiled_bias(bias, seq_len):
    return bias.tile((1, seq_len, 1)).half()  # expect: OOM111


def functional_tile(mask, num_heads):
    return torch.tile(mask, (num_heads, 1)).bool()  # expect: OOM111


def mask_per_layer(attention_mask, num_layers, dtype):
    # one copy per layer
    mask = torch.cat([attention_mask] * num_layers)
    return mask.to(dtype=dtype)  # expect: OOM111
