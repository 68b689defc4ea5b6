# Review repro (unseen code), class: a copy the code needs. The Triton launch reads `beta` as dense
# memory and the assert requires it: dropping `.contiguous()` would break the kernel.
import torch
import triton
import triton.language as tl


@triton.jit
def _scan_kernel(beta_ptr, out_ptr, n: tl.constexpr):
    i = tl.program_id(0)
    tl.store(out_ptr + i, tl.load(beta_ptr + i) * 2)


def scan(beta, heads, seq):
    beta = beta[:, None, :].expand(-1, heads, seq).contiguous()
    assert beta.is_contiguous()
    out = torch.empty_like(beta)
    _scan_kernel[(beta.numel(),)](beta, out, n=beta.numel())
    return out
