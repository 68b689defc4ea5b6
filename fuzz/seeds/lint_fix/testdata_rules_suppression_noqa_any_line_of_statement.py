# Suppression: the comment may sit on any line of the reported statement.
import torch


def first_line(mask, dtype, tgt_len):
    bsz, src_len = mask.size()
    expanded = (  # noqa: OOM101
        mask[:, None, None, :]
        .expand(bsz, 1, tgt_len, src_len)
        .to(dtype)
    )
    return expanded


def last_line(mask, dtype, tgt_len):
    bsz, src_len = mask.size()
    expanded = (
        mask[:, None, None, :]
        .expand(bsz, 1, tgt_len, src_len)
        .to(dtype)
    )  # noqa
    return expanded


def wrong_code_on_other_line(mask, dtype, tgt_len):
    bsz, src_len = mask.size()
    expanded = (  # noqa: OOM102
        mask[:, None, None, :]
        .expand(bsz, 1, tgt_len, src_len)
        .to(dtype)  # expect: OOM101
    )
    return expanded


def other_statement_does_not_count(attention_mask, bsz, q_len):
    m = attention_mask[:, None, :].expand(bsz, q_len, -1)  # noqa: OOM101
    return m.float()  # expect: OOM101
