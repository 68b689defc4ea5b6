import torch

from pkg.base import Base
from pkg.block import Block, Pool


class Model(Base):
    def __init__(self, dim):
        super().__init__()
        self.block = Block(dim)
        self.pool = Pool()

    def forward(self, hidden_states, batch_size, seq_len):
        src = hidden_states[:, None].expand(batch_size, seq_len, -1, -1)
        a = self.block(src, scale=0.5)
        b = self.to_compute(src)
        c = self.pool(src)
        d = super().first(src)
        return a, b, c, d


class Plain(Base):
    def __init__(self, dim):
        super().__init__()
        self.block = Block(dim)

    def forward(self, hidden_states):
        # Nothing enlarged is passed.
        return self.block(hidden_states), self.to_compute(hidden_states)
