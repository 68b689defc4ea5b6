# Look-alikes of the per-example copies that are large: the source's extent is unknown, but the
# repeat grows a feature dim (or heads, or a length), not only the batch.
import torch


def padding_mask_to_hidden(attention_mask, hidden_states):
    mask = attention_mask.unsqueeze(-1).repeat(1, 1, hidden_states.shape[2])
    return ~mask  # expect: OOM113


def mask_per_head(mask, num_heads):
    mask = mask.repeat(1, num_heads, 1, 1)
    return 1.0 - mask  # expect: OOM113
