# OOM104: a move of unknown origin may do nothing and return the broadcast view itself, so the
# elementwise op after it may write the full tensor ("may").
import torch


def mixup(x, params):
    lam = params["lam"].view(-1, 1, 1, 1).expand_as(x).to(x.device)
    return x * (1 - lam)  # expect: OOM104


def mixup_like(x, params):
    lam = params["lam"].view(-1, 1, 1, 1).expand_as(x).to(x)
    return x * (1 - lam)  # expect: OOM104


def mixup_type_as(x, params):
    lam = params["lam"].view(-1, 1, 1, 1).expand_as(x).type_as(x)
    return x * (1 - lam)  # expect: OOM104
