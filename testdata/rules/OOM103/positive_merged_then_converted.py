# OOM103: a copy made for a merge and then converted again at full size; converting the small
# tensor before the expand leaves one full-size copy instead of two.
import torch


def padding_mask_over_experts(attention_mask, num_layers, batch_size, seq_len, num_experts, device):
    return (
        attention_mask[None, :, :, None]
        .expand((num_layers, batch_size, seq_len, num_experts))
        .reshape(-1, num_experts)  # expect: OOM103
        .to(device)
    )


def repeat_kv(hidden_states, n_rep):
    batch, num_key_value_heads, slen, head_dim = hidden_states.shape
    hidden_states = hidden_states[:, :, None, :, :].expand(batch, num_key_value_heads, n_rep, slen, head_dim)
    return hidden_states.reshape(batch, num_key_value_heads * n_rep, slen, head_dim)  # expect: OOM103


def eager_attention(query, key, value, n_rep, scaling):
    # The repeated keys are cast to float32 here: a second full-size copy; `repeat_kv(key.float(), ...)`
    # would repeat the converted tensor once.
    key_states = repeat_kv(key, n_rep)
    value_states = repeat_kv(value, n_rep)
    attn = torch.matmul(query.float(), key_states.float().transpose(2, 3)) * scaling
    return torch.matmul(attn.softmax(-1).to(value_states.dtype), value_states)
