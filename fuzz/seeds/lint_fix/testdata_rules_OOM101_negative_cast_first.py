# OOM101 negatives: the cast already happens before the (free) expand.
import torch


def expand_mask(mask, dtype, tgt_len):
    bsz, src_len = mask.size()
    return mask[:, None, None, :].to(dtype).expand(bsz, 1, tgt_len, src_len)


def seed_case_fixed(attn_mask, batch_size, num_attention_heads, total_seq_len):
    attn_mask = attn_mask.bool()
    attn_mask = attn_mask.expand(batch_size, num_attention_heads, total_seq_len, -1)
    return attn_mask


def rotary_positions(seq_len, batch_size, device):
    position_ids = torch.arange(seq_len, device=device).float()
    return position_ids.unsqueeze(0).expand(batch_size, -1)


def cast_not_enlarged(mask, dtype):
    # No enlarger at all: an ordinary cast.
    return mask[:, None, None, :].to(dtype)
