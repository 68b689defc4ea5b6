# OOM111 cast-after-repeat: copies made by torch.cat of a tuple, torch.stack of one value, and
# einops.repeat grouping the new axis with another.
import einops
import torch


def doubled(x, batch_size, seq_len, hidden_size):
    # Named dims: the copy's size is known to be large (an unknown-size copy doubled along the
    # batch is below the default size threshold).
    x = x.view(batch_size, seq_len, hidden_size)
    y = torch.cat((x, x))
    return y.float()  # expect: OOM111


def stacked(mask, n):
    y = torch.stack([mask] * n)
    return y.half()  # expect: OOM111


def stacked_tuple(mask):
    return torch.stack((mask, mask, mask), dim=1).float()  # expect: OOM111


def merged_heads(mask, num_heads):
    m = einops.repeat(mask, "b n -> (b h) n", h=num_heads)
    return m.to(torch.float32)  # expect: OOM111
