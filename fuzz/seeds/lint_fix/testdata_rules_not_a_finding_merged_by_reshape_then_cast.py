# The cast after a merging reshape is not OOM101: the reshape already copied (and is itself OOM103);
# the cast then converts an ordinary full-size tensor that exists regardless of the expand.
import torch


def repeat_kv_then_cast(hidden_states, n_rep, dtype):
    batch, kv_heads, slen, head_dim = hidden_states.shape
    hidden_states = hidden_states[:, :, None, :, :].expand(batch, kv_heads, n_rep, slen, head_dim)
    hidden_states = hidden_states.reshape(batch, kv_heads * n_rep, slen, head_dim)  # expect: OOM103
    return hidden_states.to(dtype)
