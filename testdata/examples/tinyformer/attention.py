"""Joint attention over [text tokens; image tokens]."""
import math

import torch
import torch.nn.functional as F
from torch import nn


class TinyformerAttention(nn.Module):
    def __init__(self, hidden_size, num_attention_heads, dropout=0.0):
        super().__init__()
        self.hidden_size = hidden_size
        self.num_attention_heads = num_attention_heads
        self.head_dim = hidden_size // num_attention_heads
        self.dropout = dropout
        self.q_proj = nn.Linear(hidden_size, hidden_size)
        self.k_proj = nn.Linear(hidden_size, hidden_size)
        self.v_proj = nn.Linear(hidden_size, hidden_size)
        self.o_proj = nn.Linear(hidden_size, hidden_size)

    def forward(self, hidden_states, encoder_hidden_states, attn_mask):
        # hidden_states: [batch, image_len, hidden]; encoder_hidden_states: [batch, text_len, hidden]
        # attn_mask: [batch, 1, 1, text_len + image_len], 1 = attend
        hidden_states = torch.cat([encoder_hidden_states, hidden_states], dim=1)
        batch_size, total_seq_len, _ = hidden_states.shape

        query = self.q_proj(hidden_states).view(batch_size, total_seq_len, -1, self.head_dim).transpose(1, 2)
        key = self.k_proj(hidden_states).view(batch_size, total_seq_len, -1, self.head_dim).transpose(1, 2)
        value = self.v_proj(hidden_states).view(batch_size, total_seq_len, -1, self.head_dim).transpose(1, 2)

        attn_mask = attn_mask.expand(batch_size, self.num_attention_heads, total_seq_len, -1)
        attn_mask = attn_mask.bool()  # expect: OOM101

        out = F.scaled_dot_product_attention(
            query,
            key,
            value,
            attn_mask=attn_mask,
            dropout_p=self.dropout if self.training else 0.0,
            scale=1.0 / math.sqrt(self.head_dim),
        )
        out = out.transpose(1, 2).reshape(batch_size, total_seq_len, self.hidden_size)
        return self.o_proj(out)
