# OOM101 cast-after-expand: look-alikes of the tiny constants of
# not_a_finding/tiny_by_stated_constants.py whose stated sizes are large: `SEQ = 8192` makes a
# [8, 4, 8192, 8192] mask, 8 GiB in float32; a constant read as another object's attribute
# (`cfg.TOPK`) or shadowed by a parameter is not the constant.
import torch

NUM_HEADS = 4
SEQ = 8192
TOPK = 2


def causal_mask(mask, batch_size):
    return mask[:, None, None, :].expand(batch_size, NUM_HEADS, SEQ, SEQ).float()  # expect: OOM101


def shadowed(mask, batch_size, TOPK, seq_len):
    return mask[:, None, None, :].expand(batch_size, TOPK, seq_len, seq_len).float()  # expect: OOM101


class Attention(torch.nn.Module):
    window = 4096

    def forward(self, mask, batch_size, hidden_size):
        return mask[:, None, :].expand(batch_size, self.window, hidden_size).float()  # expect: OOM101
