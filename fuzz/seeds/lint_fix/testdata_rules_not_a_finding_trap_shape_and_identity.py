# Look-alike traps: shape arithmetic, metadata and identity tests on an expanded view are not elementwise ops.
import torch


def check(mask, bsz, heads, q_len, dtype):
    m = mask[:, None, None, :].expand(bsz, heads, q_len, -1)
    if m is None or m is not mask:
        pass
    n = m.size(-1) - 1
    rows = m.shape[0] * 2
    half = m.numel() * 0.5
    same = m.dtype == torch.bool
    four_d = m.dim() == 4
    return n, rows, half, same, four_d, m.device, len(m)


def move_other_to_mask_device(mask, hidden_states, bsz, q_len):
    m = mask[:, None, :].expand(bsz, q_len, -1)
    hidden_states = hidden_states.to(m.device).to(m.dtype)
    return hidden_states, m
