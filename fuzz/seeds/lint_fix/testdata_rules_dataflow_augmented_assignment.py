# Dataflow: augmented assignments.
import torch


def add_cast_bias(scores, alibi, bsz, q_len):
    # The cast writes a full [b, h, q, k] float copy just to add it.
    scores += alibi[None, :, None, :].expand(bsz, -1, q_len, -1).to(scores.dtype)  # expect: OOM101
    return scores


def counter_does_not_matter(attention_mask, bsz, q_len):
    steps = 0
    mask = attention_mask[:, None, :].expand(bsz, q_len, -1)
    steps += 1
    return mask.float(), steps  # expect: OOM101


def inplace_update_of_cast_result(attention_mask, bsz, q_len, offsets):
    # The cast result is updated in place: the copy is needed, no finding.
    mask = attention_mask[:, None, :].expand(bsz, q_len, -1).float()
    mask += offsets
    return mask
