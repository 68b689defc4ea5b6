# OOM112: a repeated copy of unknown origin moved to a device may cross the bus (a warning: it
# may already be there); one whose facts say it is on the host surely does.
import torch


def unknown_origin(table, k, device):
    return table.repeat(k, 1, 1).to(device)  # expect: OOM112


def host_list(model, loader, i, k, device):
    feats = []
    for batch in loader:
        feats.append(model(batch).cpu())
    feats = torch.cat(feats)
    return feats[i].repeat(k, 1, 1).to(device)  # expect: OOM112
