# Look-alikes of the learned-probe case where the query count is not known to be small: a probe
# whose length is a config value, a probe assigned again outside `__init__`, and a count read off
# the probe's hidden dim. Each mask is [B, heads, Q, K] with Q a real query length.
import torch
from torch import nn


class LearnedQueries(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.queries = nn.Parameter(torch.randn(1, config.num_query_tokens, config.hidden_size))
        self.num_heads = config.num_attention_heads

    def forward(self, attention_mask):
        q_len = self.queries.shape[1]
        mask = attention_mask[:, None, None, :].repeat(1, self.num_heads, q_len, 1)
        return mask.bool()  # expect: OOM111


class ProbeReassigned(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.probe = nn.Parameter(torch.randn(1, 1, config.hidden_size))
        self.num_heads = config.num_attention_heads

    def resize(self, seq_len, hidden):
        self.probe = nn.Parameter(torch.randn(1, seq_len, hidden))

    def forward(self, attention_mask):
        target_len = self.probe.shape[1]
        mask = attention_mask[:, None, None, :].repeat(1, self.num_heads, target_len, 1)
        return mask.bool()  # expect: OOM111


class HiddenDim(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.probe = nn.Parameter(torch.randn(1, 1, config.hidden_size))

    def forward(self, padding_mask):
        hidden = self.probe.shape[-1]
        mask = padding_mask[:, :, None].repeat(1, 1, hidden)
        return mask.float()  # expect: OOM111
