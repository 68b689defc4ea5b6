# Look-alike traps: pattern text inside strings and comments is not code.
import torch

DOC = """
    attn_mask = attn_mask.expand(batch_size, num_heads, seq_len, -1)
    attn_mask = attn_mask.bool()
"""


def f(attn_mask, batch_size, num_heads, seq_len):
    """Usage: mask[:, None, None, :].expand(bsz, 1, tgt, src).to(dtype)"""
    # attn_mask = attn_mask.expand(batch_size, num_heads, seq_len, -1).bool()
    msg = "x.expand(4, 5).float()"
    return attn_mask.bool().expand(batch_size, num_heads, seq_len, -1), msg
