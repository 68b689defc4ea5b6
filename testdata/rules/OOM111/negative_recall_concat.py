# OOM111 negatives: joining different tensors is not a repeat, and a cast before it is fine.
import torch


def joined(x, y):
    z = torch.cat((x, y))
    return z.float()


def stacked_different(a, b):
    return torch.stack([a, b]).float()


def stacked_list(xs):
    return torch.stack(xs).float()


def cast_first(mask, n):
    return torch.stack([mask.float()] * n)


def tuple_of_attributes(self):
    return torch.cat((self.a, self.b)).float()


def rotary_table(position_ids, inv_freq, dtype):
    # The rotary idiom: a small [seq, dim / 2] table doubled along its last dim.
    freqs = position_ids[..., None].float() * inv_freq
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos().to(dtype)
