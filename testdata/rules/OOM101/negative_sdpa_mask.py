# OOM101 negatives next to positive_sdpa_mask.py: an additive float mask is read as it is (no
# conversion), and a mask passed unexpanded is converted at its own small size.
import torch
import torch.nn.functional as F


def float_bias(q, k, v, mask, heads):
    b, n = mask.shape
    bias = mask.float().view(b, 1, 1, -1)
    bias = bias.expand(-1, heads, n, -1)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=bias)


def unexpanded(q, k, v, mask):
    b, n = mask.shape
    attn_mask = mask.bool().view(b, 1, 1, n)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask)


def expanded_query(q, k, v, mask, heads):
    # The expanded value is the query, not the mask: no conversion of it inside the call.
    q = q.expand(-1, heads, -1, -1)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask.bool())


def causal(n, dtype, device, batch_size):
    mask = torch.full((n, n), float("-inf"), dtype=dtype, device=device).triu(1)
    return mask.unsqueeze(0).expand(batch_size, -1, -1)


def in_query_dtype(query, key, value, n, batch_size):
    # The mask is built in the query's dtype (here by a helper it is passed to): the call needs a
    # floating query, so the mask is additive and is not converted.
    attention_mask = causal(n, query.dtype, query.device, batch_size)
    return F.scaled_dot_product_attention(query, key, value, attn_mask=attention_mask)


def starred_arguments(qkv, bias, heads, n):
    # After `*qkv` the fourth positional argument is not known to be the mask.
    b = bias[:, None, None, :].bool().expand(-1, heads, n, -1)
    return F.scaled_dot_product_attention(*qkv, b)
