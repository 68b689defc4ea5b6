# Dataflow: a method chain split across lines is one expression; the sink is reported on the line
# where the sink method's name appears.
import torch


def expand_mask(mask, dtype, tgt_len):
    bsz, src_len = mask.size()
    expanded = (
        mask[:, None, None, :]
        .expand(bsz, 1, tgt_len, src_len)
        .to(dtype)  # expect: OOM101
    )
    return expanded


def backslash_chain(hidden_bias, batch_size, seq_len):
    pos = torch.from_numpy(hidden_bias).unsqueeze(0) \
        .expand(batch_size, seq_len, -1) \
        .cuda()  # expect: OOM102
    return pos


def sink_name_on_next_line(attention_mask, bsz, q_len):
    return attention_mask[:, None, :].expand(bsz, q_len, -1).\
        contiguous()  # expect: OOM103


def binary_op_starts_line(attention_mask, bsz, heads, q_len):
    mask = attention_mask[:, None, None, :].expand(bsz, heads, q_len, -1)
    bias = (
        1.0  # expect: OOM104
        - mask
    )
    return bias
