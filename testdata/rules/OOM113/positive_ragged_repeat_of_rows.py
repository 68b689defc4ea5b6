# OOM113: `repeat_interleave` by per-row counts along one dim of a large tensor, then an op with a
# scalar: the op writes every element of the repeated copy; applying it first writes the small one.
# (A ragged 1-d index list is tiny: see not_a_finding/tiny_ragged_index.py.)
import torch


def halved_token_states(batch_size, seq_len, hidden_size, lengths):
    hidden_states = torch.randn(batch_size, seq_len, hidden_size)
    repeated = hidden_states.repeat_interleave(lengths, dim=1)
    out = repeated * 0.5  # expect: OOM113
    return out


def flattened_unknown(x, lengths):
    # The source's shape is not known: its flattened, repeated copy may be of any size.
    return torch.repeat_interleave(x, lengths) * 0.5  # expect: OOM113
