# OOM104 elementwise-after-expand with operands that are numbers by their spelling (a probability,
# an offset, a scale, a dtype limit helper, a 0-d tensor), and an out-of-place masked_fill whose
# mask is made from the small source.
import torch


def min_value_of_dtype(dtype):
    return torch.finfo(dtype).min


class Dropout:
    def keep(self, noise, b, h, q):
        n = noise[:, None, None, :].expand(b, h, q, -1)
        return n >= self.p  # expect: OOM104

    def shifted(self, bias, b, h, q, k):
        m = bias[:, None, None, :].expand(b, h, q, k)
        return m + self.offset  # expect: OOM104


def additive(mask, dtype, b, q):
    m = mask[:, None, :].expand(b, q, -1)
    return m * min_value_of_dtype(dtype)  # expect: OOM104


def scaled(emb, b, n, d, scale):
    e = emb[None].expand(b, n, d)
    return scale * e  # expect: OOM104


def eager_mask(mask, b, h, q, dtype):
    m = mask[:, None, None, :].expand(b, h, q, -1)
    return torch.where(m, torch.tensor(0.0), torch.finfo(dtype).min)  # expect: OOM104


def eager_mask_zeros(mask, b, h, q, min_value):
    m = mask[:, None, None, :].expand(b, h, q, -1)
    return torch.where(m, torch.zeros(()), min_value)  # expect: OOM104


def filled(scores, attention_mask, b, h, q):
    m = attention_mask[:, None, None, :].expand(b, h, q, -1)
    keep = m.masked_fill(attention_mask[:, None, None, :] == 0, 0.0)  # expect: OOM104
    return scores * keep


def clamped(probs, b, q, self_eps):
    p = probs[:, None, :].expand(b, q, -1)
    return p.clamp_min(self_eps)  # expect: OOM104


def causal_and_padding(scores, mask, b, h, q, k):
    # The causal mask lacks the heads dim the padding mask was expanded over.
    m = mask[:, None, :, :].expand(b, h, q, k)
    causal_mask = torch.tril(torch.ones(q, k, dtype=torch.bool))[None, None, :, :]
    allowed = m & ~causal_mask  # expect: OOM104
    return scores.masked_fill(~allowed, float("-inf"))


def causal_plus_padding(attention_mask, batch_size, heads, seq_length, dtype):
    # Expanded over batch and heads by a tuple plus a known shape; the padding mask lacks heads.
    causal_mask = torch.triu(torch.full((seq_length, seq_length), -1e9), 1)
    causal = causal_mask[None, None, :, :].expand((batch_size, heads) + causal_mask.shape)
    padding = (1.0 - attention_mask[:, None, None, :]) * torch.finfo(dtype).min
    # Converted again before it is returned: a second full-size copy.
    return (causal + padding).to(dtype)  # expect: OOM104
