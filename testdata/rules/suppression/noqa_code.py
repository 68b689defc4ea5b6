# Suppression: `# noqa: CODE` silences only the listed codes.
import torch


def listed(attn_mask, batch_size, num_heads, seq_len):
    attn_mask = attn_mask.expand(batch_size, num_heads, seq_len, -1)
    return attn_mask.bool()  # noqa: OOM101


def several(attention_mask, bsz, q_len):
    m = attention_mask[:, None, :].expand(bsz, q_len, -1)
    return 1.0 - m  # noqa: OOM101, OOM104


def lowercase_and_prose(attention_mask, bsz, q_len):
    m = attention_mask[:, None, :].expand(bsz, q_len, -1)
    return m.half()  # noqa: oom101 mask is tiny in practice


def other_code_does_not_silence(attention_mask, bsz, q_len, device):
    m = torch.from_numpy(attention_mask)[:, None, :].expand(bsz, q_len, -1)
    return m.to(  # expect: OOM102
        device,  # noqa: OOM101
    )
