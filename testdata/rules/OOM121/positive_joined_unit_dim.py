# OOM121 repeat-instead-of-expand: a size-1 dim known through `torch.cat`. torch joins tensors of
# one rank whose sizes agree on every dim but the joined one, so a dim of 1 that one element
# states is 1 in the result (xLSTM's forget-gate matrix, `[B, NH, S + 1, 1]` repeated to a square
# that is only subtracted from its own transpose).
import torch


def forget_gate_matrix(log_fgates, B, NH, S):
    cumsum = torch.cat(
        [torch.zeros((B, NH, 1, 1)), torch.cumsum(log_fgates, dim=-2)],
        dim=-2,
    )
    rep = cumsum.repeat(1, 1, 1, S + 1)  # expect: OOM121
    return rep - rep.transpose(-2, -1)
