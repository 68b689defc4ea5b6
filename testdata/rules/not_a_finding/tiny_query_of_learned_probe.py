# A count read off a dim whose size is known by construction: the pooling head's learned probe is
# made once in `__init__` as `[1, 1, hidden]`, so `target_len = probe.shape[1]` is 1 and the mask
# repeated over heads and `target_len` queries is `[B, heads, 1, K]`: one query row per head, small.
# (siglip2's multihead attention pooling head.) Not reported at the default `min-static-bytes`.
import torch
from torch import nn


class PoolingHead(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.probe = nn.Parameter(torch.randn(1, 1, config.hidden_size))
        self.num_heads = config.num_attention_heads

    def forward(self, hidden_state, attention_mask):
        batch_size = hidden_state.shape[0]
        probe = self.probe.repeat(batch_size, 1, 1)
        target_len = probe.shape[1]
        mask = attention_mask[:, None, None, :].repeat(1, self.num_heads, target_len, 1)
        return ~mask.bool()

    def by_size(self, attention_mask):
        queries = self.probe.size(1)
        mask = attention_mask[:, None, None, :].expand(-1, self.num_heads, queries, -1)
        return mask.float()


class CountsOfOne(nn.Module):
    def __init__(self):
        super().__init__()
        self.cls_token = torch.zeros(1, 1, 768)

    def forward(self, mask, heads):
        # All repeat counts turn out to be 1: nothing is copied larger.
        n = self.cls_token.shape[0]
        return mask.repeat(n, 1, 1, 1).float()
