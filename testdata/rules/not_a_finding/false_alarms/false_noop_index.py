# Review repro (unseen code), class: a no-op conversion. isin gives bool, argsort and arange give
# int64: each cast converts to the dtype the value has.
import torch


def gather_rows(x, ids, k):
    keep = torch.isin(ids, torch.tensor([0, 1, 2]))
    keep = keep[:, None].expand(-1, k).bool()
    order = torch.argsort(ids)[:, None].expand(-1, k).long()
    pos = torch.arange(x.shape[1])[None, :].expand(x.shape[0], -1).to(torch.int64)
    return x.gather(1, order) * keep, pos
