# OOM103: look-alikes of a `.clone()` stored in a returned container
# (negative_clone_in_returned_container.py): a `.contiguous()` stored there (a layout
# request, not a promise of memory of the caller's own), and a `.clone()` in a container the
# function only reads.
import torch


def load_sample_contiguous(frames, condition, batch_size, time_steps):
    out = {}
    out["target"] = frames.float()
    cond = condition.expand(batch_size, -1, time_steps, -1)
    out["condition"] = cond.contiguous()  # expect: OOM103
    return out


def masked_total(scores, mask, batch_size, num_heads, q_len, k_len):
    kept = {}
    kept["mask"] = mask[:, None, None, :].expand(batch_size, num_heads, q_len, k_len).clone()  # expect: OOM103
    return scores.masked_fill(kept["mask"], 0.0).sum()
