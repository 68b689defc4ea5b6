# Dataflow: the result of a sink is an ordinary full-size tensor, so only the first sink of a chain is
# reported (after the fix is applied the next one may surface on the following run).
import torch


def expand_mask(mask, dtype, tgt_len):
    bsz, src_len = mask.size()
    expanded_mask = mask[:, None, None, :].expand(bsz, 1, tgt_len, src_len).to(dtype)  # expect: OOM101
    inverted_mask = 1.0 - expanded_mask
    return inverted_mask.masked_fill(inverted_mask.to(torch.bool), torch.finfo(dtype).min)


def cast_then_move(attention_mask, bsz, q_len, device):
    m = attention_mask[:, None, :].expand(bsz, q_len, -1).bool()  # expect: OOM101
    return m.to(device)
