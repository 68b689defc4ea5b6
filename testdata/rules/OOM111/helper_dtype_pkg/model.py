# Casts after `repeat` of values that helpers in another file (masks.py) return with a dtype that
# is not the target (or not known): the repeated copy is converted.
from torch import nn

from .masks import lengths_mask, padding_mask_or_input


class Encoder(nn.Module):
    def forward(self, tokens, feats):
        src_mask = padding_mask_or_input(tokens, self.padding_idx)
        attn_mask = (
            src_mask.unsqueeze(-1)
            .repeat(self.num_heads, 1, feats.shape[1])
            .permute(0, 2, 1)
            .bool()  # expect: OOM111
        )
        return attn_mask

    def decode(self, lengths, feats):
        src_mask = lengths_mask(lengths, feats.shape[1])
        attn_mask = (
            src_mask.unsqueeze(-1)
            .repeat(self.num_heads, 1, feats.shape[1])
            .permute(0, 2, 1)
            .bool()  # expect: OOM111
        )
        return attn_mask
