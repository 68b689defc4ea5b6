# Dataflow: bindings inside `with` blocks flow out of them.
import torch


def under_no_grad(attention_mask, bsz, q_len):
    with torch.no_grad():
        mask = attention_mask[:, None, :].expand(bsz, q_len, -1)
    return mask.half()  # expect: OOM101


def under_autocast(attention_mask, bsz, heads, q_len):
    with torch.autocast("cuda"), torch.no_grad():
        mask = attention_mask[:, None, None, :].expand(bsz, heads, q_len, -1)
        bias = 1.0 - mask  # expect: OOM104
    return bias
