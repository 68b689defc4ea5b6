# Not a finding: a comparison already yields bool, so .bool() / .to(torch.bool) after the expand is a no-op.
import torch


def padding_mask(input_ids, pad_token_id, bsz, heads, q_len):
    mask = input_ids == pad_token_id
    mask = mask[:, None, None, :].expand(bsz, heads, q_len, -1)
    return mask.bool()


def keep_mask(attention_mask, bsz, q_len):
    keep = attention_mask > 0
    keep = keep[:, None, :].expand(bsz, q_len, -1)
    return keep.to(torch.bool)
