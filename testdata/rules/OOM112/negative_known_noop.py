# OOM112 negatives: the facts say the copy already lives where it is moved (made with `device=`,
# moved there before the repeat): the move returns the tensor itself.
import torch


def made_there(n, d, k, device):
    table = torch.zeros(n, d, device="cuda")
    return table.repeat(k, 1).cuda()


def moved_before(table, k):
    table = table.cuda()
    return table.repeat(k, 1).cuda()


def host_to_host(n, d, k):
    table = torch.zeros(n, d)
    return table.repeat(k, 1).cpu()
