"""The model: embeddings, positions, blocks."""
import torch
from torch import nn

from .attention import TinyformerAttention
from .masks import joint_attention_mask, make_causal_bias, make_padding_mask
from .utils import position_ids_for


class TinyformerBlock(nn.Module):
    def __init__(self, hidden_size, num_attention_heads):
        super().__init__()
        self.norm1 = nn.LayerNorm(hidden_size)
        self.attn = TinyformerAttention(hidden_size, num_attention_heads)
        self.norm2 = nn.LayerNorm(hidden_size)
        self.mlp = nn.Sequential(nn.Linear(hidden_size, 4 * hidden_size), nn.GELU(), nn.Linear(4 * hidden_size, hidden_size))

    def forward(self, hidden_states, encoder_hidden_states, attn_mask):
        text_len = encoder_hidden_states.shape[1]
        joint = self.attn(self.norm1(hidden_states), encoder_hidden_states, attn_mask)
        hidden_states = hidden_states + joint[:, text_len:]
        return hidden_states + self.mlp(self.norm2(hidden_states))


class TinyformerTextEncoder(nn.Module):
    def __init__(self, vocab_size, hidden_size, num_attention_heads, max_positions=512):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, hidden_size)
        self.embed_positions = nn.Embedding(max_positions, hidden_size)
        self.layer = nn.TransformerEncoderLayer(hidden_size, num_attention_heads, batch_first=True)

    def forward(self, input_ids, attention_mask):
        batch_size, seq_len = input_ids.shape
        position_ids = position_ids_for(seq_len, batch_size, input_ids.device)
        hidden_states = self.embed_tokens(input_ids) + self.embed_positions(position_ids)
        # additive [bsz, 1, seq, seq] mask: causal bias + padding bias
        padding = make_padding_mask(attention_mask, seq_len).to(hidden_states.dtype)  # expect: OOM101
        padding = (1.0 - padding) * torch.finfo(hidden_states.dtype).min
        bias = padding + make_causal_bias(seq_len, hidden_states.dtype, hidden_states.device)
        return self.layer(hidden_states, src_mask=bias[:, 0].repeat_interleave(self.layer.self_attn.num_heads, dim=0))


class TinyformerModel(nn.Module):
    def __init__(self, vocab_size=32000, hidden_size=1536, num_attention_heads=24, num_layers=4, patch_dim=64):
        super().__init__()
        self.text_encoder = TinyformerTextEncoder(vocab_size, hidden_size, num_attention_heads)
        self.patch_embed = nn.Linear(patch_dim, hidden_size)
        self.pos_embed = nn.Embedding(16384, hidden_size)
        self.blocks = nn.ModuleList(TinyformerBlock(hidden_size, num_attention_heads) for _ in range(num_layers))
        self.proj_out = nn.Linear(hidden_size, patch_dim)

    def forward(self, patches, input_ids, text_mask):
        # patches: [batch, image_len, patch_dim]; input_ids / text_mask: [batch, text_len]
        batch_size, image_len, _ = patches.shape
        encoder_hidden_states = self.text_encoder(input_ids, text_mask)

        image_pos = torch.arange(image_len).unsqueeze(0).expand(batch_size, -1)
        # `[batch, image_len]` int64 ids: tiny at realistic sizes, so not reported.
        image_pos = image_pos.to(patches.device)
        hidden_states = self.patch_embed(patches) + self.pos_embed(image_pos)

        attn_mask = joint_attention_mask(text_mask, image_len)  # [batch, 1, 1, text_len + image_len]
        for block in self.blocks:
            hidden_states = block(hidden_states, encoder_hidden_states, attn_mask)
        return self.proj_out(hidden_states)
