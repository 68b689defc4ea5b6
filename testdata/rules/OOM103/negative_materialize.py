# OOM103 negatives.
import torch


def contiguous_first(attention_mask, bsz, heads, q_len):
    mask = attention_mask[:, None, None, :].contiguous()
    return mask.expand(bsz, heads, q_len, -1)


def clone_then_write(attention_mask, bsz, q_len):
    # The copy is needed: a broadcast view cannot be written in place.
    mask = attention_mask[:, None, :].expand(bsz, q_len, -1).clone()
    mask[:, :, 0] = True
    return mask


def reshape_same_rank(query, key, value, mask, b, h, q, k, attention_kernel):
    # Same number of dims: a view, nothing copied; the result is then consumed by an unknown call.
    # (Passed to `scaled_dot_product_attention` instead, a bool mask would be converted there:
    # OOM101's positive_sdpa_mask.py.)
    m = mask[:, None, None, :].expand(b, h, q, k).reshape(b, h, q, k)
    return attention_kernel(query, key, value, attn_mask=m)


def reshape_before_expand(hidden_states, batch, kv_heads, n_rep, slen, head_dim):
    hidden_states = hidden_states.reshape(batch, kv_heads, 1, slen, head_dim)
    return hidden_states.expand(batch, kv_heads, n_rep, slen, head_dim)
