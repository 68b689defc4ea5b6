# A repeat of size-1 dims read only by a sampler that draws each output element from the input
# element at its position: `torch.bernoulli`, `Tensor.bernoulli` and `torch.poisson` read an
# expanded input the same way (same samples under the same seed), so the copy is needless.
import torch


def token_dropout(keep_prob, batch_size, seq_len):
    p = keep_prob.unsqueeze(0).unsqueeze(0).repeat(batch_size, seq_len, 1)  # expect: OOM121
    return torch.bernoulli(p)


def spikes(rates, steps):
    r = rates.unsqueeze(0).repeat(steps, 1)  # expect: OOM121
    return torch.poisson(r) + r.bernoulli()
