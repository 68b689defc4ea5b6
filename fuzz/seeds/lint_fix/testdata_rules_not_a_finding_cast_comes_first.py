# Not a finding: the cast is already before the expand (the fixed form of OOM101).
import torch


def expand_mask(mask, dtype, tgt_len):
    bsz, src_len = mask.size()
    expanded = mask[:, None, None, :].to(dtype).expand(bsz, 1, tgt_len, src_len)
    return expanded


def attention_mask(attn_mask, batch_size, num_attention_heads, total_seq_len):
    attn_mask = attn_mask.bool()
    attn_mask = attn_mask.expand(batch_size, num_attention_heads, total_seq_len, -1)
    return attn_mask


def positions(seq_len, batch_size, device):
    pos = torch.arange(seq_len, device=device).float().cuda()
    return pos[None, :].expand(batch_size, -1)
