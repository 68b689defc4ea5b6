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
