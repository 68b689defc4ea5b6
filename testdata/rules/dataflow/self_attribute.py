# Dataflow: attribute targets such as self.mask are tracked inside one method.
import torch
from torch import nn


class MaskedAttention(nn.Module):
    def __init__(self, num_heads):
        super().__init__()
        self.num_heads = num_heads

    def forward(self, scores, attention_mask):
        bsz, _, q_len, _ = scores.shape
        self.mask = attention_mask[:, None, None, :].expand(bsz, self.num_heads, q_len, -1)
        return scores + self.mask.float()  # expect: OOM101

    def cached(self, attention_mask, bsz, q_len, device):
        self._cache = torch.from_numpy(attention_mask)[:, None, :].expand(bsz, q_len, -1)
        return self._cache.to(device)  # expect: OOM102
