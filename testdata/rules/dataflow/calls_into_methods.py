# Values across calls (one file): an enlarged argument is followed into the callee, and the
# callee's sink is the finding (reported at the callee's line, the call in its chain). Traps: a
# callee that reduces, indexes one element of the enlarged dim, or writes in place.
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x, scale=2.0):
        return x.half() * scale  # expect: OOM101


class Base(nn.Module):
    def to_bf16(self, x):
        return x.to(torch.bfloat16)  # expect: OOM101

    def to_double(self, x):
        return x.double()  # expect: OOM101


class Head(Base):
    def __init__(self, dim):
        super().__init__()
        self.block = Block(dim)

    def mix(self, x, scale, offset=0.0):
        return x.float() * scale + offset  # expect: OOM101

    def forward(self, hidden_states, batch_size, seq_len):
        src = hidden_states[:, None].expand(batch_size, seq_len, -1, -1)
        a = self.mix(src, scale=2.0)
        b = self.block(src)
        c = self.to_bf16(src)
        d = super().to_double(src)
        return a, b, c, d


class Traps(nn.Module):
    def total(self, x):
        return x.sum(1).float()

    def first(self, x):
        return x[0].float()

    def bump(self, x):
        x.add_(1)
        return x

    def forward(self, hidden_states, batch_size, seq_len):
        src = hidden_states[None].expand(batch_size, seq_len, -1, -1)
        small = hidden_states.float()
        return self.total(src), self.first(src), self.bump(small)


def gate(x, *, dtype=torch.float16):
    return x.to(dtype)  # expect: OOM101


def caller(mask, batch_size, seq_len):
    return gate(mask[:, None, :].expand(batch_size, seq_len, -1), dtype=torch.float32)


def not_enlarged(mask):
    return gate(mask)
