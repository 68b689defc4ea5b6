# OOM131 negatives: copies that are not needed for a layout (OOM103 keeps them) and merges that
# are followed by a second full-size conversion (OOM103: convert before the expand).
import torch


def contiguous_mask(attention_mask, bsz, heads, q_len):
    mask = attention_mask[:, None, None, :].expand(bsz, heads, q_len, -1)
    return mask.contiguous()  # expect: OOM103


def merged_then_moved(attention_mask, num_layers, batch_size, seq_len, top_k, device):
    # MoE aux-loss padding mask: the flat copy is then moved again at full size.
    return (
        attention_mask[None, :, :, None]
        .expand((num_layers, batch_size, seq_len, top_k))
        .reshape(-1)  # expect: OOM103
        .to(device)
    )


def same_rank_view(mask, b, h, q, k):
    m = mask[:, None, None, :].expand(b, h, q, k).contiguous()  # expect: OOM103
    return m.view(b, h, q, k) + 1
