# Dataflow: try / except / finally.
import torch


def try_expand(attention_mask, bsz, heads, q_len, dtype):
    try:
        mask = attention_mask[:, None, None, :].expand(bsz, heads, q_len, -1)
    except RuntimeError:
        mask = attention_mask
    return mask.to(dtype)  # expect: OOM101


def cast_in_finally(attention_mask, bsz, q_len):
    mask = attention_mask
    try:
        mask = attention_mask[:, None, :].expand(bsz, q_len, -1)
    finally:
        out = mask.bool()  # expect: OOM101
    return out
