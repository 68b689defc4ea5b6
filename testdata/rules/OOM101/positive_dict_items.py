# OOM101: two values read from one dict under different keys are unrelated, so a cast of one to the
# other's dtype is a real conversion (of unknown certainty).
import torch


def pool(features):
    emb = features["token_embeddings"]
    mask = features["attention_mask"]
    m = mask.unsqueeze(-1).expand(emb.size()).to(emb.dtype)  # expect: OOM101
    return (emb * m).sum(1) / m.sum(1).clamp(min=1e-9)
