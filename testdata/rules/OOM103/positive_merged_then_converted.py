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



def repeat_kv_then_cast(hidden_states, n_rep, dtype):
    # Merged and converted in the same function: converting first leaves one full-size copy.
    batch, num_key_value_heads, slen, head_dim = hidden_states.shape
    hidden_states = hidden_states[:, :, None, :, :].expand(batch, num_key_value_heads, n_rep, slen, head_dim)
    hidden_states = hidden_states.reshape(batch, num_key_value_heads * n_rep, slen, head_dim)  # expect: OOM103
    return hidden_states.to(dtype)
