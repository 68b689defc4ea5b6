# OOM104: the shape of a `torch.cat` result is known (its elements' common sizes), so the expanded
# bias's rank is, and an operand that is 1 on the heads dim (a padding bias `[B, 1, 1, 1, K]`) can
# be added before the heads are expanded (ProphetNet-style n-gram attention bias).
import torch


def ngram_bias(table, ngram, max_len, seq_len, batch_size, num_heads, attention_mask, dtype):
    bias = torch.where(table, 0.0, -1e9).expand(ngram, max_len, 2 * max_len)
    bias = torch.cat([bias[:, :seq_len, :seq_len], bias[:, :seq_len, -seq_len:]], dim=-1)
    extended = bias[None, None].expand((batch_size, num_heads) + bias.shape)
    extended = extended + (1.0 - attention_mask[:, None, None, None, :]) * -1e9  # expect: OOM104
    return extended.to(dtype)
