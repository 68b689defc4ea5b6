# Helpers that return enlarged values. Nothing here is a finding by itself: returning a view is free.


def make_mask(attention_mask, num_heads, tgt_len):
    bsz, src_len = attention_mask.shape
    return attention_mask[:, None, None, :].expand(bsz, num_heads, tgt_len, src_len)


def make_positions(position_ids, batch_size):
    return position_ids.unsqueeze(0).expand(batch_size, -1)


def make_mask_cast_first(attention_mask, num_heads, tgt_len, dtype):
    bsz, src_len = attention_mask.shape
    return attention_mask[:, None, None, :].to(dtype).expand(bsz, num_heads, tgt_len, src_len)
