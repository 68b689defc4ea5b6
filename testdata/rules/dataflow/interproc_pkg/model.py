# Call sites of helpers defined in another file of the linted tree.
from torch import nn

from .helpers import make_mask, make_mask_cast_first, make_positions


class Model(nn.Module):
    def __init__(self, num_heads):
        super().__init__()
        self.num_heads = num_heads

    def forward(self, hidden_states, attention_mask, position_ids):
        bsz, q_len, _ = hidden_states.shape
        mask = make_mask(attention_mask, self.num_heads, q_len)
        mask = mask.to(hidden_states.dtype)  # expect: OOM101
        # `[bsz, S]` position ids: tiny at realistic sizes, not reported.
        positions = make_positions(position_ids, bsz).float()
        ok = make_mask_cast_first(attention_mask, self.num_heads, q_len, hidden_states.dtype)
        return mask, positions, ok
