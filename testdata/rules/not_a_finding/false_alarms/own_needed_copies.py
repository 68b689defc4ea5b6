# Not a finding: copies the code needs. A Triton launch (`kernel[grid](...)`, here an imported
# kernel), a `torch.ops.*` operator and `assert x.is_contiguous()` read the copy as dense memory,
# and a parameter is written in place by the optimizer (each head its own weight). A cast whose
# result a kernel reads is needed at full size too: cast first, and the kernel would need a
# `.contiguous()` of the same size. The look-alikes that fire are in
# OOM103/positive_needed_lookalikes.py.
import torch
from torch import nn

from vendor_kernels import fused_scan


def launch(beta, batch_size, num_heads, seq_len):
    beta = beta[:, None, :].expand(batch_size, num_heads, seq_len).contiguous()
    out = torch.empty_like(beta)
    fused_scan[(batch_size * num_heads,)](beta, out, seq_len)
    return out


def extension_op(mask, batch_size, num_heads, seq_len):
    mask = mask[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).clone()
    return torch.ops.sparse_attn.block_mask(mask, 64)


def extension_indices(ids, batch_size, seq_len, num_heads):
    idx = ids[:, None, :].expand(batch_size, num_heads, seq_len).to(torch.int32)
    return torch.ops.sparse_attn.gather(idx)


def asserted(bias, batch_size, num_heads, seq_len):
    bias = bias[None].expand(batch_size, num_heads, seq_len, seq_len).contiguous()
    assert bias.is_contiguous() and bias.dim() == 4
    return bias.sum()


class Heads(nn.Module):
    def __init__(self, num_heads, hidden_size):
        super().__init__()
        w = torch.randn(1, hidden_size)
        self.w = nn.Parameter(w.expand(num_heads, hidden_size).clone())
        self.u = nn.Parameter(w.repeat(num_heads, 1))
