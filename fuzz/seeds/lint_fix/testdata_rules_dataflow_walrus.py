# Dataflow: an assignment expression binds the enlarged value.
import torch


def walrus_then_cast(scores, alibi, bsz, q_len, dtype):
    scores = scores + (bias := alibi[None, :, None, :].expand(bsz, -1, q_len, -1))
    return scores, bias.to(dtype)  # expect: OOM101


def walrus_in_condition(attention_mask, bsz, q_len):
    if (mask := attention_mask[:, None, :].expand(bsz, q_len, -1)).dim() == 3:
        return mask.float()  # expect: OOM101
    return None
