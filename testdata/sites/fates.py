"""One enlargement per fate that `oomlint sites` names (tests/it/sites.rs reads this file)."""
import torch


def reported(attn_mask, batch_size, num_heads, seq_len):
    attn_mask = attn_mask[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len)
    return attn_mask.bool()  # fate: reported as OOM101


def tiny(flags):
    small = flags.expand(2, 3)
    return small.float()  # fate: tiny at its bound size


def no_op(ids, pad_id, batch_size, num_heads, seq_len):
    keep = (ids != pad_id)[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len)
    return keep.bool()  # fate: no-op: the value is already bool


def needed_copy(kv, n_rep, batch, heads, seq, dim):
    kv = kv[:, :, None, :, :].expand(batch, heads, n_rep, seq, dim)
    return kv.contiguous().view(batch, heads * n_rep, seq, dim)  # fate: opt-in


def reduced(mask, batch_size, seq_len):
    return mask.expand(batch_size, seq_len, seq_len).sum(-1)  # fate: read by `.sum`


def lost(mask, batch_size, num_heads, seq_len):
    big = mask.expand(batch_size, num_heads, seq_len, seq_len)
    return external_kernel(big)  # fate: lost at a call the analysis does not follow


def returned(mask, batch_size, num_heads, seq_len):
    return mask.expand(batch_size, num_heads, seq_len, seq_len)  # fate: returned


def moved(mask, batch_size, num_heads, seq_len, device):
    mask = mask.expand(batch_size, num_heads, seq_len, seq_len)
    return mask.to(device)  # fate: may already be on that device


def discarded(mask, batch_size, num_heads, seq_len):
    mask.expand(batch_size, num_heads, seq_len, seq_len).float()  # fate: thrown away


def no_saving(query, batch_size, seq_len, num_heads, head_dim):
    q = query.view(batch_size, seq_len, num_heads, head_dim).half().repeat_interleave(2, dim=2)
    return q.float()  # fate: no saving


def broadcast_by_where(specgrams, masked, mask_value):
    # A repeat read by a broadcasting torch function, of dims not known to be 1.
    return torch.where(masked, mask_value.repeat(specgrams.shape), specgrams)  # fate: broadcasts it; `expand` would do only if the repeated dims are 1
