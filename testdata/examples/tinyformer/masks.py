"""Mask helpers. Returning an expanded view is free; what the caller does with it decides the cost."""
import torch


def make_padding_mask(attention_mask, tgt_len):
    """[bsz, src_len] (1 = keep) -> [bsz, 1, tgt_len, src_len] broadcast view."""
    bsz, src_len = attention_mask.shape
    return attention_mask[:, None, None, :].expand(bsz, 1, tgt_len, src_len)


def make_causal_bias(q_len, dtype, device):
    """[1, 1, q_len, q_len] additive causal bias, built small."""
    bias = torch.full((q_len, q_len), torch.finfo(dtype).min, dtype=dtype, device=device)
    return torch.triu(bias, diagonal=1)[None, None]


def joint_attention_mask(text_mask, image_len):
    """[bsz, text_len] -> [bsz, 1, 1, text_len + image_len]: image tokens are always attended."""
    image_mask = text_mask.new_ones(text_mask.shape[0], image_len)
    return torch.cat([text_mask, image_mask], dim=1)[:, None, None, :]
