# OOM101: a bool `attn_mask` expanded before `F.scaled_dot_product_attention`. torch broadcasts
# the mask itself and converts a bool mask to an additive float one (`where(m, 0, -inf)`) at the
# size it is given: expanded to [B, H, Q, K], that is a full-size float tensor per call (measured
# with torch 2.15 in scripts/prove_recall.py). Passing the [B, 1, 1, K] mask gives equal values.
import torch
import torch.nn.functional as F


def attend(q, k, v, mask, heads):
    b, n = mask.shape
    attn_mask = mask.bool().view(b, 1, 1, -1)
    attn_mask = attn_mask.expand(-1, heads, n, -1)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask)  # expect: OOM101


def attend_positional(q, k, v, mask, heads):
    # The mask's dtype is not known here: a bool mask is converted, a float one is not, so the
    # finding says "may".
    b, n = mask.shape
    attn_mask = mask.unsqueeze(1).unsqueeze(1)
    attn_mask = attn_mask.expand(b, heads, n, n)
    return F.scaled_dot_product_attention(q, k, v, attn_mask, 0.0)  # expect: OOM101


def attend_repeated(q, k, v, mask, heads):
    # A repeated bool mask: the repeat copies it, and the call converts the copy again.
    b, n = mask.shape
    attn_mask = (mask > 0).view(b, 1, 1, n).repeat(1, heads, n, 1)
    return torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask)  # expect: OOM111
