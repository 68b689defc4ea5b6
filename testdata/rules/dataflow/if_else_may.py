# Dataflow: at an if/else join, a value enlarged on one path only is still reported ("may").
import torch


def maybe_expanded(attention_mask, bsz, heads, q_len, dtype):
    if attention_mask.dim() == 2:
        mask = attention_mask[:, None, None, :].expand(bsz, heads, q_len, -1)
    else:
        mask = attention_mask
    return mask.to(dtype)  # expect: OOM101


def both_branches(attention_mask, causal, bsz, q_len):
    if causal:
        mask = attention_mask[:, None, :].expand(bsz, q_len, -1)
    else:
        mask = attention_mask.unsqueeze(1).expand(bsz, q_len, -1)
    return mask.bool()  # expect: OOM101


def if_without_else(mask, flag, bsz, q_len, device):
    if flag:
        mask = torch.from_numpy(mask)[:, None, :].expand(bsz, q_len, -1)
    return mask.to(device)  # expect: OOM102


def ternary(mask, flag, bsz, q_len):
    m = mask[:, None, :].expand(bsz, q_len, -1) if flag else mask
    return m.half()  # expect: OOM101
