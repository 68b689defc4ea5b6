# A script written at module level: the reorder applies as in a function body.
import torch

attention_mask = torch.load("mask.pt")
batch_size, num_heads, seq_len = 8, 32, 4096

mask = attention_mask[:, None, None, :].expand(batch_size, num_heads, seq_len, -1)
mask = mask.bool()

bias = attention_mask[:, None, None, :].expand(batch_size, num_heads, seq_len, -1)
scores = bias.to(torch.float16)
print(scores.shape)
