# Copies the code needs: the initial state of a recurrent layer. cuDNN's LSTM/GRU/RNN kernels
# require a dense `hx` ("rnn: hx is not contiguous"), so a learned state broadcast over the batch
# and made contiguous (`h0.expand(L, B, H).contiguous()`, stanza's character model) is a copy made
# for that kernel: passed as the second argument of a module `__init__` built as `nn.LSTM`, or as
# `hx=` to any call (wrappers that pass it on). The look-alike at the end, a per-token state that is
# large at any default size, is read by `sum` only, which needs no copy at all.
import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self, layers: int, hidden: int):
        super().__init__()
        self.lstm = nn.LSTM(hidden, hidden, layers, batch_first=True)
        self.h0 = nn.Parameter(torch.zeros(layers, 1, hidden))
        self.c0 = nn.Parameter(torch.zeros(layers, 1, hidden))
        self.layers = layers
        self.hidden = hidden

    def forward(self, x, batch_size):
        h0 = self.h0.expand(self.layers, batch_size, self.hidden).contiguous()
        c0 = self.c0.expand(self.layers, batch_size, self.hidden).contiguous()
        return self.lstm(x, (h0, c0))

    def wrapped(self, packed, lens, batch_size):
        h0 = self.h0.expand(self.layers, batch_size, self.hidden).contiguous()
        c0 = self.c0.expand(self.layers, batch_size, self.hidden).contiguous()
        return self.rnn_wrapper(packed, lens, hx=(h0, c0))

    def not_a_state(self, x, batch_size, seq_len):
        h = self.h0.expand(self.layers, batch_size * seq_len, self.hidden).contiguous()  # expect: OOM103
        return x + h.sum()
