# OOM131: a broadcast view copied for a consumer that reads only dense memory (a Triton launch,
# a `torch.ops.*` operator, `assert x.is_contiguous()`): needed as written.
import torch
import triton


@triton.jit
def _scan_kernel(beta_ptr, out_ptr, n):
    pass


def launch(beta, batch_size, num_heads, seq_len):
    beta = beta[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).contiguous()  # expect: OOM131
    out = torch.empty_like(beta)
    _scan_kernel[(batch_size,)](beta, out, n=seq_len)
    return out


def extension_op(mask, batch_size, num_heads, seq_len):
    mask = mask[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).clone()  # expect: OOM131
    return torch.ops.sparse_attn.block_mask(mask, 64)
