# Dataflow: names carry the enlarged value through plain assignments and aliases.
import torch


def through_names(attention_mask, bsz, heads, q_len, dtype):
    mask = attention_mask[:, None, None, :]
    expanded = mask.expand(bsz, heads, q_len, -1)
    alias = expanded
    again = alias
    return again.to(dtype)  # expect: OOM101


def chained_targets(attention_mask, bsz, q_len):
    a = b = attention_mask[:, None, :].expand(bsz, q_len, -1)
    c = b.float()  # expect: OOM101
    return a, c


def annotated_assignment(attention_mask, bsz, q_len):
    mask: torch.Tensor = torch.from_numpy(attention_mask)[:, None, :].expand(bsz, q_len, -1)
    return mask.cuda()  # expect: OOM102
