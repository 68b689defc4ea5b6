import torch


class Attention(torch.nn.Module):
    def forward(self, scores, attn_mask, batch_size, total_seq_len):
        attn_mask = attn_mask.expand(batch_size, self.num_attention_heads, total_seq_len, -1)
        attn_mask = attn_mask.bool()
        return scores.masked_fill(attn_mask, float("-inf"))
