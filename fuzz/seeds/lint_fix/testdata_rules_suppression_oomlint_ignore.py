# Suppression: `# oomlint: ignore[CODE]`.
import torch


def ignored(attn_mask, batch_size, num_heads, seq_len):
    attn_mask = attn_mask.expand(batch_size, num_heads, seq_len, -1)
    return attn_mask.bool()  # oomlint: ignore[OOM101]


def ignored_two(attention_mask, bsz, q_len):
    m = attention_mask[:, None, :].expand(bsz, q_len, -1)
    return ~m  # oomlint: ignore[OOM101, OOM104]


def ignored_on_other_line(attention_mask, bsz, q_len, device):
    m = attention_mask[:, None, :].expand(bsz, q_len, -1)
    return m.to(
        device,  # oomlint: ignore[OOM102]
    )


def wrong_code(attention_mask, bsz, q_len):
    m = attention_mask[:, None, :].expand(bsz, q_len, -1)
    return (  # oomlint: ignore[OOM102]
        m.contiguous()  # expect: OOM103
    )


def combined_with_other_tools(attention_mask, bsz, q_len):
    m = attention_mask[:, None, :].expand(bsz, q_len, -1)
    return m.half()  # type: ignore[attr-defined]  # oomlint: ignore[OOM101]
