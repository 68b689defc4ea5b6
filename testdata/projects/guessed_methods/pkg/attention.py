import torch
from torch import nn

from pkg.rotary import Rotary


class Attention(nn.Module):
    def __init__(self, heads, pos_emb=None):
        super().__init__()
        self.heads = heads
        self.pos_emb = pos_emb
        self.own = Rotary(64)

    def forward(self, q, pos, pos_emb=None):
        freqs = pos_emb(pos).unsqueeze(1).repeat(1, self.heads, 1, 1)
        # Followed: only `Rotary` defines `apply_rotary` (a staticmethod) and `scaled`.
        q1 = pos_emb.apply_rotary(q, freqs)
        q2 = self.pos_emb.scaled(q, freqs=freqs)
        # Not followed: two classes define `mix`; `half` is an `nn.Module` method; the
        # arguments do not fit `shifted` (a keyword it has no parameter for).
        q3 = pos_emb.mix(q, freqs)
        q4 = pos_emb.half(freqs)
        q5 = pos_emb.shifted(q, freqs, bias=1.0)
        return q1, q2, q3, q4, q5

    def only_mix(self, q, mask, pos_emb):
        m = mask[:, None].expand(-1, self.heads, -1, -1)
        return pos_emb.mix(q, m)

    def bound_twice(self, q, mask, pos_emb):
        m = mask[:, None].expand(-1, self.heads, -1, -1)
        # `freqs` would be bound by position and by keyword: not `Rotary.shifted`.
        return pos_emb.shifted(m, q, freqs=q)
