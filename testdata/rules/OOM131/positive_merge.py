# OOM131 copy-of-broadcast-for-layout: a reshape/flatten that merges the broadcast dims must copy, and the
# code wants that layout (grouped-query kv repeat, a flat batch of heads, a flat index list).
import torch


def repeat_kv(hidden_states: torch.Tensor, n_rep: int) -> torch.Tensor:
    # transformers' grouped-query attention helper
    batch, num_key_value_heads, slen, head_dim = hidden_states.shape
    if n_rep == 1:
        return hidden_states
    hidden_states = hidden_states[:, :, None, :, :].expand(batch, num_key_value_heads, n_rep, slen, head_dim)
    return hidden_states.reshape(batch, num_key_value_heads * n_rep, slen, head_dim)  # expect: OOM131


def flatten_heads(mask, bsz, num_heads, tgt_len):
    mask = mask[:, None, None, :].expand(bsz, num_heads, tgt_len, -1)
    return mask.flatten(0, 1)  # expect: OOM131


def flatten_all(hidden_bias, batch_size, seq_len):
    bias = hidden_bias[None, None, :].expand(batch_size, seq_len, -1)
    return bias.flatten()  # expect: OOM131
