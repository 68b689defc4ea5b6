# OOM101 cast-after-expand: attention-mask patterns.
import torch


def seed_case(attn_mask, batch_size, num_attention_heads, total_seq_len):
    # The motivating OOM: the cast writes the full [b, h, s, s] tensor.
    attn_mask = attn_mask.expand(batch_size, num_attention_heads, total_seq_len, -1)
    attn_mask = attn_mask.bool()  # expect: OOM101
    return attn_mask


def expand_mask(mask, dtype, tgt_len=None):
    # diffusers / transformers `_expand_mask`: [bsz, src_len] -> [bsz, 1, tgt_len, src_len]
    bsz, src_len = mask.size()
    tgt_len = tgt_len if tgt_len is not None else src_len
    expanded_mask = mask[:, None, None, :].expand(bsz, 1, tgt_len, src_len).to(dtype)  # expect: OOM101
    return expanded_mask


def cross_attention_mask(encoder_attention_mask, inputs_embeds, tgt_len):
    bsz, src_len = encoder_attention_mask.shape
    mask = encoder_attention_mask[:, None, None, :].expand(bsz, 1, tgt_len, src_len)
    return mask.to(inputs_embeds.dtype)  # expect: OOM101


def head_mask(attention_mask, batch_size, num_heads, q_len):
    mask = attention_mask.view(batch_size, 1, 1, -1).expand(batch_size, num_heads, q_len, -1)
    return mask.to(dtype=torch.float16)  # expect: OOM101


def legacy_type(attention_mask, bsz, heads, q_len, k_len):
    mask = attention_mask[:, None, None, :].expand(bsz, heads, q_len, k_len)
    return mask.type(torch.float32)  # expect: OOM101
