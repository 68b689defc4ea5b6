# The function forms of `~` (`torch.logical_not(x)`, `torch.bitwise_not(x)`) on a repeated copy
# write it a second time. Under `if mask.dtype == torch.bool:` the `.bool()` inside is a no-op
# and the `logical_not` is the sink (diffusers' attention processors); the `else` branch casts.
import torch


def inverted(attention_mask, bsz, heads, q_len):
    mask = attention_mask[:, None, None, :].repeat(bsz, heads, q_len, 1)
    return torch.logical_not(mask)  # expect: OOM113


def bitwise(attention_mask, bsz, heads, q_len):
    return torch.bitwise_not(attention_mask[:, None, None, :].repeat(bsz, heads, q_len, 1))  # expect: OOM113


def prepared(attention_mask, batch_size, heads, q_len):
    attention_mask = attention_mask.view(batch_size, heads, -1, attention_mask.shape[-1])
    attention_mask = attention_mask.repeat(1, 1, q_len, 1)
    if attention_mask.dtype == torch.bool:
        attention_mask = torch.logical_not(attention_mask.bool())  # expect: OOM113
    else:
        attention_mask = attention_mask.bool()  # expect: OOM111
    return attention_mask
