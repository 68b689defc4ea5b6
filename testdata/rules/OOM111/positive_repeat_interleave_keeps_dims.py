# Look-alikes of a flat `repeat_interleave` that are large: with a `dim`, the tensor keeps its dims
# and grows one of them (key/value heads repeated for grouped attention), so the cast after it
# copies a `[batch, heads, seq, head_dim]` tensor.
import torch


def grouped_keys(key_states, n_rep, dtype):
    keys = key_states.repeat_interleave(n_rep, dim=1)
    return keys.to(dtype)  # expect: OOM111


def grouped_values(value_states: torch.Tensor, n_rep: int):
    values = torch.repeat_interleave(value_states, n_rep, 1)
    return values.float()  # expect: OOM111
