# OOM102 negatives: move first, then expand; or the moved value is not enlarged.
import torch


def mask_to_device(attention_mask, batch_size, num_heads, q_len, device):
    mask = attention_mask[:, None, None, :].to(device)
    return mask.expand(batch_size, num_heads, q_len, -1)


def positions_on_device(seq_len, batch_size, device):
    # Created on the device: no move at all.
    return torch.arange(seq_len, device=device).unsqueeze(0).expand(batch_size, -1)


def move_then_broadcast(mask, scores):
    return mask.cuda().expand_as(scores)


def move_unrelated(mask, hidden_states, bsz, tgt_len):
    mask = mask[:, None, None, :].expand(bsz, 1, tgt_len, -1)
    hidden_states = hidden_states.to(mask.device)
    return hidden_states, mask
