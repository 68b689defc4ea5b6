# OOM121 repeat-instead-of-expand: repeating size-1 dims whose result is only broadcast-read.
import torch


def add_key_bias(scores, key_bias, num_heads, q_len):
    # key_bias: [b, k] -> [b, h, q, k]; scores: [b, h, q, k]
    bias = key_bias[:, None, None, :].repeat(1, num_heads, q_len, 1)  # expect: OOM121
    return scores + bias


def masked_scores(scores, attention_mask, num_heads):
    mask = attention_mask.unsqueeze(1).repeat(1, num_heads, 1, 1)  # expect: OOM121
    return scores.masked_fill(mask, float("-inf"))


def gated(scores, other, keep, num_heads):
    keep = keep[:, None, :, :].repeat(1, num_heads, 1, 1)  # expect: OOM121
    return torch.where(keep, scores, other)


def multi_use(scores, values, weights, num_heads):
    w = weights.unsqueeze(1).repeat(1, num_heads, 1)  # expect: OOM121
    return scores * w, values - w


def identity_per_block(x, mask, num_blocks, block_size):
    # `torch.eye(n)` is an [n, n] matrix: the repeat adds a leading dim, a new size-1 dim.
    eye = torch.eye(block_size, device=x.device).repeat(num_blocks, 1, 1)  # expect: OOM121
    return (1 - mask) * x + mask * eye
