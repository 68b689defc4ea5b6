# OOM131: a helper's merged copy (`repeat_kv`) that one of its callers converts. The helper returns
# that layout to every caller, so the copy is the helper's to make; OOM103 does not claim it.
import torch


def repeat_kv(hidden_states, n_rep):
    batch, num_key_value_heads, slen, head_dim = hidden_states.shape
    hidden_states = hidden_states[:, :, None, :, :].expand(batch, num_key_value_heads, n_rep, slen, head_dim)
    return hidden_states.reshape(batch, num_key_value_heads * n_rep, slen, head_dim)  # expect: OOM131


def eager_attention(query, key, value, n_rep, scaling):
    key_states = repeat_kv(key, n_rep)
    value_states = repeat_kv(value, n_rep)
    attn = torch.matmul(query.float(), key_states.float().transpose(2, 3)) * scaling
    return torch.matmul(attn.softmax(-1).to(value_states.dtype), value_states)
