# A parameter initialised from `arange(1, n + 1)` expanded over the model width: the state size
# `n` is small (16 in the mamba family), so `[intermediate_size, n]` is a few hundred KiB. The
# length of `arange(start, stop)` is `stop - start`, not an unknown extent.
import torch


class Mixer(torch.nn.Module):
    def __init__(self, intermediate_size):
        super().__init__()
        self.intermediate_size = intermediate_size
        A = torch.arange(1, 16 + 1)[None, :]
        A = A.expand(self.intermediate_size, -1).contiguous()
        self.A_log = torch.nn.Parameter(torch.log(A))
