# Findings whose wording must stay exact: a parenthesized receiver keeps its parentheses in the
# help, a line continuation does not show, and two findings on one line name their receivers.
import torch


def gaussian(window_size, batch_size, seq_len):
    x = (torch.arange(window_size) - window_size // 2).expand(batch_size, seq_len, -1)
    return torch.exp(-x.pow(2.0))  # expect: OOM104


def continued(mask, bsz, num_heads, q_len):
    m = mask[:, None, None, :] \
        .expand(bsz, num_heads, q_len, -1)
    return m * 2.0  # expect: OOM104


def rotary(freqs, batch_size, seq_len, head_dim):
    cos = freqs.cos()[None].expand(batch_size, seq_len, head_dim)
    sin = freqs.sin()[None].expand(batch_size, seq_len, head_dim)
    return cos * 2.0, sin * 2.0  # expect: OOM104


def sprint(emb, batch_size, seq_len, hidden_size):
    t = emb[None, None].expand(batch_size, seq_len, hidden_size)
    return torch.sin(t) / (torch.cos(t) + torch.sin(t))  # expect: OOM104
