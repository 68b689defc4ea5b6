# Helpers that return containers holding enlarged values: a tuple, a list, a dict. Returning a
# view is free; the callers' conversions are the findings.


def mask_and_positions(attention_mask, position_ids, num_heads, tgt_len):
    bsz, src_len = attention_mask.shape
    mask = attention_mask[:, None, None, :].expand(bsz, num_heads, tgt_len, src_len)
    return mask, position_ids


def masks_as_list(attention_mask, num_heads, tgt_len):
    bsz, src_len = attention_mask.shape
    return [attention_mask, attention_mask[:, None, None, :].expand(bsz, num_heads, tgt_len, src_len)]


def mask_outputs(attention_mask, num_heads, tgt_len):
    bsz, src_len = attention_mask.shape
    out = {"mask": attention_mask[:, None, None, :].expand(bsz, num_heads, tgt_len, src_len)}
    out["lengths"] = attention_mask.sum(-1)
    return out
