"""The seed model as the constructed CUDA snapshot and Ascend folder name it.

`testdata/samples/cuda-snapshot/` and `testdata/samples/ascend/` were made by
`testdata/samples/gen/` for `/workspace/model/modeling_tiny.py`: the same
model as `testdata/samples/torch-cpu/tiny_model.py`, line for line (their
frames: the mask cast at :35 in prepare_mask, called at :46; matmul :48,
softmax :50; the layer calls at :78 and :97). Keep every line where it is.
The run they describe: H=24, total_seq_len 9536 (query chunk 128), 2 layers,
batch 2; an int64 (1, 1, S, S) mask expanded and then cast to bool.
Do not edit below without regenerating the samples' frames.

"""
import math

import torch
from torch import nn


class BuggyAttention(nn.Module):
    def __init__(self, hidden_size=384, num_attention_heads=24):
        super().__init__()
        self.num_attention_heads = num_attention_heads
        self.head_dim = hidden_size // num_attention_heads
        self.q_proj = nn.Linear(hidden_size, hidden_size)
        self.k_proj = nn.Linear(hidden_size, hidden_size)
        self.v_proj = nn.Linear(hidden_size, hidden_size)
        self.o_proj = nn.Linear(hidden_size, hidden_size)

    def _split(self, x, batch_size, seq_len):
        x = x.view(batch_size, seq_len, self.num_attention_heads, self.head_dim)
        return x.transpose(1, 2)

    def prepare_mask(self, attn_mask, batch_size, total_seq_len):
        attn_mask = attn_mask.expand(batch_size, self.num_attention_heads, total_seq_len, -1)
        attn_mask = attn_mask.bool()
        return attn_mask

    def forward(self, hidden_states, past_key, past_value, attn_mask):
        batch_size, seq_len, _ = hidden_states.shape
        query = self._split(self.q_proj(hidden_states), batch_size, seq_len)
        key = self._split(self.k_proj(hidden_states), batch_size, seq_len)
        value = self._split(self.v_proj(hidden_states), batch_size, seq_len)
        key = torch.cat([past_key, key], dim=2)
        value = torch.cat([past_value, value], dim=2)
        total_seq_len = key.shape[2]
        attn_mask = self.prepare_mask(attn_mask, batch_size, total_seq_len)
        attn_mask = attn_mask[:, :, -seq_len:, :]
        scores = torch.matmul(query, key.transpose(-1, -2)) / math.sqrt(self.head_dim)
        scores = scores.masked_fill(~attn_mask, float("-inf"))
        probs = torch.softmax(scores, dim=-1)
        context = torch.matmul(probs, value)
        context = context.transpose(1, 2).reshape(batch_size, seq_len, -1)
        return self.o_proj(context)


class FixedAttention(BuggyAttention):
    def prepare_mask(self, attn_mask, batch_size, total_seq_len):
        attn_mask = attn_mask.bool()
        attn_mask = attn_mask.expand(batch_size, self.num_attention_heads, total_seq_len, -1)
        return attn_mask


class DecoderLayer(nn.Module):
    def __init__(self, attention_cls, hidden_size=384, num_attention_heads=24):
        super().__init__()
        self.input_layernorm = nn.LayerNorm(hidden_size)
        self.self_attn = attention_cls(hidden_size, num_attention_heads)
        self.post_attention_layernorm = nn.LayerNorm(hidden_size)
        self.mlp = nn.Sequential(
            nn.Linear(hidden_size, 4 * hidden_size),
            nn.GELU(),
            nn.Linear(4 * hidden_size, hidden_size),
        )

    def forward(self, hidden_states, past_key, past_value, attn_mask):
        residual = hidden_states
        hidden_states = self.input_layernorm(hidden_states)
        hidden_states = self.self_attn(hidden_states, past_key, past_value, attn_mask)
        hidden_states = residual + hidden_states
        residual = hidden_states
        hidden_states = self.mlp(self.post_attention_layernorm(hidden_states))
        return residual + hidden_states


class TinyDecoder(nn.Module):
    def __init__(self, fixed=False, num_layers=2, hidden_size=384, num_attention_heads=24):
        super().__init__()
        attention_cls = FixedAttention if fixed else BuggyAttention
        self.num_attention_heads = num_attention_heads
        self.head_dim = hidden_size // num_attention_heads
        self.layers = nn.ModuleList(
            DecoderLayer(attention_cls, hidden_size, num_attention_heads) for _ in range(num_layers)
        )

    def forward(self, hidden_states, past_keys, past_values, attn_mask):
        for layer, past_key, past_value in zip(self.layers, past_keys, past_values):
            hidden_states = layer(hidden_states, past_key, past_value, attn_mask)
        return hidden_states


def make_inputs(batch_size, model, seq_len=128, past_len=1920, hidden_size=384):
    """Inputs for one decode chunk: 128 new tokens on top of a 1920-token cache."""
    torch.manual_seed(0)
    total_seq_len = past_len + seq_len
    hidden_states = torch.randn(batch_size, seq_len, hidden_size)
    shape = (batch_size, model.num_attention_heads, past_len, model.head_dim)
    past_keys = [torch.randn(shape) for _ in model.layers]
    past_values = [torch.randn(shape) for _ in model.layers]
    # int64 causal mask of shape (1, 1, total_seq_len, total_seq_len), as a
    # tokenizer/HF-style mask would arrive (8 bytes per element).
    attn_mask = torch.ones(total_seq_len, total_seq_len, dtype=torch.long).tril()[None, None]
    return hidden_states, past_keys, past_values, attn_mask
