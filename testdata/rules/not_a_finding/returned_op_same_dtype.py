# Not a finding: the same causal + padding sum when both masks are made in the hidden dtype: the
# final `.to(hidden_states.dtype)` is a no-op, so the full-size sum is the function's output as it
# is (the caller gets the tensor it asked for; see OOM104's Known limits).
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
        padding = attention_mask[:, None, None, :].to(hidden_states.dtype)
        padding = (1.0 - padding) * -10000.0
        extended_attention_mask = extended_causal_mask + padding
    else:
        extended_attention_mask = extended_causal_mask
    return extended_attention_mask.to(hidden_states.dtype)
