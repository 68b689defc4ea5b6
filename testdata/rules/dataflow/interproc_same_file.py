# Interprocedural (one file): functions whose return value is an expanded view; casting the call result
# at the call site is the finding (reported at the call site's sink).
import torch
from torch import nn


def make_padding_mask(attention_mask, tgt_len):
    bsz, src_len = attention_mask.shape
    return attention_mask[:, None, None, :].expand(bsz, 1, tgt_len, src_len)


def build(attention_mask, tgt_len, dtype):
    return make_padding_mask(attention_mask, tgt_len).to(dtype)  # expect: OOM101


def build_via_name(lengths, bsz, tgt_len, src_len):
    mask = make_length_mask(lengths, bsz, tgt_len, src_len)
    return mask.cuda()  # expect: OOM102


class Encoder(nn.Module):
    def __init__(self, num_heads):
        super().__init__()
        self.num_heads = num_heads

    def _head_mask(self, attention_mask, q_len):
        bsz = attention_mask.shape[0]
        return attention_mask[:, None, None, :].expand(bsz, self.num_heads, q_len, -1)

    @staticmethod
    def causal(q_len, bsz, device):
        mask = torch.ones(q_len, q_len, device=device).tril()
        return mask[None, None].expand(bsz, 1, q_len, q_len)

    def forward(self, hidden_states, attention_mask):
        bsz, q_len, _ = hidden_states.shape
        head_mask = self._head_mask(attention_mask, q_len).bool()  # expect: OOM101
        causal = Encoder.causal(q_len, bsz, hidden_states.device).half()  # expect: OOM101
        causal_too = self.causal(q_len, bsz, hidden_states.device).to(hidden_states.dtype)  # expect: OOM101
        return head_mask, causal, causal_too


def not_a_view_helper(attention_mask, tgt_len):
    # Returns a reduced value: its callers' casts are fine.
    return make_padding_mask(attention_mask, tgt_len).sum(-1)


def caller_of_reduced(attention_mask, tgt_len):
    return not_a_view_helper(attention_mask, tgt_len).float()


def make_length_mask(lengths, bsz, tgt_len, src_len):
    # Built on the host (no `device=`): the summary says so.
    keep = torch.arange(src_len)[None, :] < torch.tensor(lengths)[:, None]
    return keep[:, None, None, :].expand(bsz, 1, tgt_len, src_len)
