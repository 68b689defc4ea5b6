# OOM104: a causal mask made in the hidden dtype, expanded over batch and heads, plus a padding mask
# of another dtype: the sum may be promoted (float16 + float32 is float32), so the final
# `.to(hidden_states.dtype)` is a second full-size conversion, also on the path where the `else`
# branch hands over the expanded mask itself (prophetnet's prepare_attention_mask). Adding before
# the expand keeps one small sum.
import torch


def prepare_attention_mask(hidden_states, attention_mask, num_heads):
    batch_size, seq_length = hidden_states.shape[:2]
    causal_mask = torch.full(
        (seq_length, seq_length),
        torch.finfo(hidden_states.dtype).min,
        dtype=hidden_states.dtype,
        device=hidden_states.device,
    )
    causal_mask = torch.triu(causal_mask, 1)
    extended_causal_mask = causal_mask[None, None, :, :].expand((batch_size, num_heads) + causal_mask.shape)
    if attention_mask is not None:
        extended_attention_mask = (1.0 - attention_mask[:, None, None, :]) * torch.finfo(torch.float32).min
        extended_attention_mask = extended_causal_mask + extended_attention_mask  # expect: OOM104
    else:
        extended_attention_mask = extended_causal_mask
    return extended_attention_mask.to(hidden_states.dtype)
