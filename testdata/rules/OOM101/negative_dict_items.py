# OOM101 negatives: one dict item cast to its own dtype (the same key read twice) is a no-op.
import torch


def pool(features, size):
    mask = features["attention_mask"]
    m = mask.unsqueeze(-1).expand(size).to(features["attention_mask"].dtype)
    return m.sum(1)
