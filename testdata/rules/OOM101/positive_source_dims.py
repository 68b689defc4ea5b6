# OOM101 cast-after-expand: a `-1` keeps a dim of the source whose name the code unpacked from its
# shape (`bsz, src_len = mask.shape`), so the size note prices `src_len` as a sequence, not as an
# unknown extent.
import torch


def padding_mask(attention_mask, num_heads, tgt_len):
    bsz, src_len = attention_mask.shape
    mask = attention_mask[:, None, None, :].expand(bsz, num_heads, tgt_len, -1)
    return mask.bool()  # expect: OOM101


def head_mask(hidden_states, mask, num_heads):
    bsz, q_len, _ = hidden_states.size()
    return mask.expand(bsz, num_heads, q_len, -1).float()  # expect: OOM101
