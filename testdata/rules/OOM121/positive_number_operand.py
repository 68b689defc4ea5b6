# OOM121: a repeat read by a binary op whose other operand may be a plain number (its kind is not
# known here): beam search's gather index `repeat(...) // self.beam_size`. `expand` saves the copy,
# but if the operand is a number the op's result is as large as the copy again; the finding says
# to apply the op to the small source first (the note appears in the snapshot). The look-alike
# combines the copy with a tensor of known shape, or an attribute `__init__` makes a Parameter: no
# such note.
import torch


class BeamSearch:
    def reorder(self, indices, mems, hidden_size, p_len):
        mems_ids = indices.unsqueeze(2).unsqueeze(3).repeat(1, 1, p_len, hidden_size) // self.beam_size  # expect: OOM121
        return mems.gather(1, mems_ids)


def with_known_tensor(x, n, d):
    weights = torch.randn(x.shape[0], n, d)
    tiled = x.unsqueeze(1).repeat(1, n, 1)  # expect: OOM121
    return tiled * weights


class Scaled(torch.nn.Module):
    def __init__(self, n, d):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.ones(1, n, d))

    def forward(self, x, n):
        tiled = x.unsqueeze(1).repeat(1, n, 1)  # expect: OOM121
        return tiled * self.scale


class Powerset(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("mapping", self.build_mapping(n), persistent=False)

    def build_mapping(self, n):
        return torch.zeros(n, n)

    def to_multilabel(self, n_classes, n_sets):
        arange = torch.arange(n_classes).unsqueeze(0)
        return self.mapping * arange.tile((n_sets, 1))  # expect: OOM121
