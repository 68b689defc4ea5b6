# OOM102 device-move-after-expand: `.to(...)` with a device-like or tensor argument.
import torch


def mask_to_device(attention_mask, batch_size, num_heads, q_len, device):
    mask = attention_mask[:, None, None, :].expand(batch_size, num_heads, q_len, -1)
    return mask.to(device)  # expect: OOM102


def causal_to_cuda_string(seq_len, batch_size):
    causal = torch.ones(seq_len, seq_len).tril().unsqueeze(0).expand(batch_size, -1, -1)
    return causal.to("cuda")  # expect: OOM102


def mask_to_tensor_device(mask, hidden_states, bsz, tgt_len):
    mask = mask[:, None, None, :].expand(bsz, 1, tgt_len, -1)
    return mask.to(hidden_states.device)  # expect: OOM102


def mask_to_device_and_dtype(mask, bsz, tgt_len, device, dtype):
    mask = mask[:, None, None, :].expand(bsz, 1, tgt_len, -1)
    return mask.to(device, dtype)  # expect: OOM102


def mask_to_device_kwarg(mask, bsz, tgt_len, local_rank):
    mask = mask[:, None, None, :].expand(bsz, 1, tgt_len, -1)
    return mask.to(device=torch.device("cuda", local_rank))  # expect: OOM102


def mask_like_other_tensor(mask, scores, bsz, heads, tgt_len):
    mask = mask[:, None, None, :].expand(bsz, heads, tgt_len, -1)
    return mask.to(scores)  # expect: OOM102


def mask_type_as(mask, scores, bsz, heads, tgt_len):
    mask = mask[:, None, None, :].expand(bsz, heads, tgt_len, -1)
    return mask.type_as(scores)  # expect: OOM102
