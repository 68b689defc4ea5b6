# OOM121 negatives: expand would not be equivalent, or the copy is needed.
import torch


def repeats_real_data(scores, bias, num_heads):
    # dim 1 of bias is not known to be 1: repeat tiles real data.
    bias = bias.repeat(1, num_heads, 1, 1)
    return scores + bias


def repeats_other_dim(scores, key_bias, batch_size):
    bias = key_bias[:, None, :].repeat(batch_size, 1, 1)
    return scores + bias


def returned(key_bias, num_heads):
    return key_bias[:, None, :].repeat(1, num_heads, 1)


def viewed_after(key_bias, num_heads, b, k):
    bias = key_bias[:, None, :].repeat(1, num_heads, 1)
    return bias.view(b * num_heads, k)


def written_in_place(scores, mask, num_heads):
    mask = mask.unsqueeze(1).repeat(1, num_heads, 1, 1)
    mask[:, 0] = False
    return scores.masked_fill(mask, 0.0)


def passed_to_unknown(query, key, value, mask, num_heads, attention_kernel):
    # (`scaled_dot_product_attention` is no unknown call: see OOM101's positive_sdpa_mask.py.)
    mask = mask.unsqueeze(1).repeat(1, num_heads, 1, 1)
    return attention_kernel(query, key, value, attn_mask=mask)


def identity_tiled(x, num_blocks, block_size):
    # Look-alike: the repeat also tiles the rows of the [n, n] identity (dim 0 is n, not 1).
    eye = torch.eye(block_size, device=x.device).repeat(num_blocks, 2, 1)
    return x + eye
