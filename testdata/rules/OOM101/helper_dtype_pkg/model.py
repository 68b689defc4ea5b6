# Casts after `expand` of values that helpers in another file (bias.py) build: a dtype other than
# the one the helper was given, or a helper whose parameter is rebound, is a real conversion.
import torch
from torch import nn

from .bias import rebound_bias, stream_bias


class Decoder(nn.Module):
    def model_dtype_mask(self, hidden_states, batch_size, seq_len):
        # Built in `hidden_states.dtype`, converted to the module's dtype: not known to be equal.
        bias = stream_bias(seq_len, hidden_states.device, hidden_states.dtype)
        extended = bias[None, None, :, :].expand(batch_size, self.config.num_attention_heads, -1, -1)
        return extended.to(self.dtype)  # expect: OOM101

    def rebound_mask(self, hidden_states, batch_size, seq_len):
        bias = rebound_bias(seq_len, hidden_states.dtype)
        extended = bias[None, None, :, :].expand(batch_size, self.config.num_attention_heads, -1, -1)
        return extended.to(hidden_states.dtype)  # expect: OOM101

    def unknown_factory_dtype(self, hidden_states, batch_size, seq_len, mask_dtype):
        # `dtype=` with a dtype that is not known: the factory's default is not assumed.
        bias = torch.zeros(seq_len, seq_len, dtype=mask_dtype)
        extended = bias[None, None, :, :].expand(batch_size, self.config.num_attention_heads, -1, -1)
        return extended.float()  # expect: OOM101
