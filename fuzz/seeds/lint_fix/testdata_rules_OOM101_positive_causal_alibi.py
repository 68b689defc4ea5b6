# OOM101 cast-after-expand: causal masks, ALiBi bias, annotated dtypes, expand_as / broadcast_to.
import torch


def causal_mask(q_len, k_len, batch_size, device, dtype):
    causal = torch.ones(q_len, k_len, dtype=torch.bool, device=device).tril()
    causal = causal[None, None, :, :].expand(batch_size, 1, q_len, k_len)
    return causal.to(dtype)  # expect: OOM101


def build_alibi_bias(slopes, key_len, batch_size, out_dtype: torch.dtype):
    positions = torch.arange(key_len, device=slopes.device)
    alibi = slopes[:, None] * positions[None, :]  # [heads, key_len]
    alibi = alibi[None, :, None, :].expand(batch_size, -1, key_len, -1)
    return alibi.to(out_dtype)  # expect: OOM101


def mask_like_scores(mask, scores):
    mask = mask.expand_as(scores)
    return mask.bfloat16()  # expect: OOM101


def broadcast_mask(mask, batch_size, heads, q_len, k_len):
    mask = mask.broadcast_to((batch_size, heads, q_len, k_len))
    return mask.long()  # expect: OOM101


def byte_mask(mask, batch_size, q_len):
    return mask[:, None, :].expand(batch_size, q_len, -1).byte()  # expect: OOM101
