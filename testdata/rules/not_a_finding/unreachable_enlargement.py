# Not a finding: the enlarged value cannot reach the conversion, because the branch that enlarged
# it leaves first (`return`, `raise`, `continue`, `break`).
import torch


def repeat_kv(hidden_states, n_rep, dtype):
    batch, num_key_value_heads, slen, head_dim = hidden_states.shape
    if n_rep > 1:
        hidden_states = hidden_states[:, :, None].expand(batch, num_key_value_heads, n_rep, slen, head_dim)
        return hidden_states
    return hidden_states.to(dtype)


def checked(mask, batch_size, tgt_len):
    if mask.dim() == 2:
        mask = mask[:, None, :].expand(batch_size, tgt_len, -1)
        raise ValueError(f"unexpected mask {mask.shape}")
    return mask.bool()


def per_block(masks, batch_size):
    out = []
    for mask in masks:
        if mask is None:
            mask = torch.ones(4)[None].expand(batch_size, -1)
            continue
        out.append(mask.float())
    return out


def first_small(masks, batch_size):
    for mask in masks:
        if mask.numel() > 16:
            mask = mask[None].expand(batch_size, -1)
            break
    else:
        return None
    return mask.sum()


def context_mask(n, left, device):
    if left is None:
        return None
    try:
        m = torch.tensor([True], device=device).expand(n, n)
        return m
    except RuntimeError:
        raise
    return m.float()
