# Look-alikes of the latent-space, grid and id classes (not_a_finding/tiny_latent_and_grid.py)
# that are large: an image-sized map with no hidden-size dim keeps 512 px sides, a float table
# over a grid carries a hidden size, integer ids over two extents are a `[B, Q, K]` grid.
# (A copy count that is not a count of copies per example: OOM111/positive_copy_counts.py.)
import torch


def image_mask_per_channel(mask, batch_size, height, width):
    # `[B, 3, H, W]` at image resolution: 24 MiB of float32 at the defaults.
    return mask.view(1, 1, height, width).expand(batch_size, 3, height, width).float()  # expect: OOM101


def grid_features(table, batch_size, grid_h, grid_w, hidden_size):
    # A float table over the patch grid with a hidden size: `[B, H*W, D]`.
    feats = table.view(1, 1, hidden_size).expand(batch_size, grid_h * grid_w, hidden_size)
    return feats.half()  # expect: OOM101


def relative_ids(q_len, kv_len, batch_size):
    # Integer ids over two extents: `[B, Q, K]` int64 is 1 GiB at the defaults.
    ids = torch.arange(kv_len).view(1, 1, -1).expand(batch_size, q_len, kv_len)
    return ids.to(torch.int32)  # expect: OOM101


def latent_attention_bias(bias, batch_size, num_heads, seq_len, latent_len):
    # A latent-named dim next to a heads-by-sequence grid: still `[B, H, S, L]`.
    return bias[:, None, None, :].expand(batch_size, num_heads, seq_len, latent_len).float()  # expect: OOM101

