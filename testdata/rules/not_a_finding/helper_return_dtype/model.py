# No-op casts of values that helpers in another file (masks.py) return: the dtype is already the
# target, so nothing is copied.
import torch
from torch import nn

from .masks import key_padding_mask, mask_from_lengths, stream_bias


class Encoder(nn.Module):
    def forward(self, tokens, feats):
        src_mask = key_padding_mask(tokens, pad_idx=self.padding_idx)
        attn_mask = (
            src_mask.unsqueeze(-1).repeat(self.num_heads, 1, feats.shape[1]).permute(0, 2, 1).bool()
        )
        return attn_mask

    def decode(self, lengths, feats):
        src_mask = mask_from_lengths(torch.tensor(lengths))
        src_mask = src_mask.to(feats.device)
        attn_mask = (
            src_mask.unsqueeze(-1).repeat(self.num_heads, 1, feats.shape[1]).permute(0, 2, 1).bool()
        )
        return attn_mask


class Decoder(nn.Module):
    def predict_mask(self, hidden_states, attention_mask, attention_bias):
        batch_size, seq_len = hidden_states.shape[:2]
        bias = stream_bias(self.max_positions, self.ngram, hidden_states.device, hidden_states.dtype)
        bias = torch.cat([bias[:, :seq_len, :seq_len], bias[:, :seq_len, -seq_len:]], dim=-1)
        extended = bias[None, None].expand(
            (batch_size, self.config.num_attention_heads) + bias.shape
        )
        if attention_mask is not None:
            # On this path the value is a full-size copy already (the mask bias has every dim of
            # `extended`): converting it is not the broadcast's cost.
            extended = extended + attention_bias
        return extended.to(hidden_states.dtype)
