# Suppression: `# noqa` inside a string literal is not a comment.
import torch


def f(attention_mask, bsz, q_len):
    m = attention_mask[:, None, :].expand(bsz, q_len, -1)
    return m.float(), "# noqa"  # expect: OOM101


def g(attention_mask, bsz, q_len):
    m = attention_mask[:, None, :].expand(bsz, q_len, -1)
    return m.half(), "# oomlint: ignore[OOM101]"  # expect: OOM101
