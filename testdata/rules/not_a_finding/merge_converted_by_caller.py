# A helper's merged copy (`repeat_kv`: expand then a merging reshape) that a caller converts
# (`key_states.float()`) is still the layout the helper returns to every caller: not OOM103 (it is
# OOM131's, opt-in). Compare OOM103/positive_merged_then_converted.py, which converts in the same
# function.
import torch


def repeat_kv(hidden_states, n_rep):
    batch, num_key_value_heads, slen, head_dim = hidden_states.shape
    hidden_states = hidden_states[:, :, None, :, :].expand(batch, num_key_value_heads, n_rep, slen, head_dim)
    return hidden_states.reshape(batch, num_key_value_heads * n_rep, slen, head_dim)


def eager_attention(query, key, value, n_rep, scaling):
    key_states = repeat_kv(key, n_rep)
    value_states = repeat_kv(value, n_rep)
    attn = torch.matmul(query.float(), key_states.float().transpose(2, 3)) * scaling
    return torch.matmul(attn.softmax(-1).to(value_states.dtype), value_states)
