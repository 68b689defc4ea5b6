# OOM131: a broadcast view made contiguous for code the analysis cannot follow: another package's
# function, a custom torch.autograd.Function's `apply` (its `forward` hands the tensors to a
# compiled kernel), a callable computed at run time. `.contiguous()` changes nothing but the
# layout, so the author made the copy for that code: needed as written (opt-in rule).
import torch
from torch.autograd import Function

from vendor_kernels import fused_scan_fn

from .backend import _RasterizeFn


def _make_lazy_cuda_func(name):
    from . import _C

    return getattr(_C, name)


class _SphericalHarmonics(Function):
    @staticmethod
    def forward(ctx, coeffs, dirs):
        return _make_lazy_cuda_func("sh_fwd")(coeffs, dirs)


def to_vendor_function(beta, batch_size, num_heads, seq_len):
    beta = beta[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).contiguous()  # expect: OOM131
    return fused_scan_fn(beta)


def to_own_autograd_function(coeffs, dirs, cameras, points, k):
    coeffs = torch.broadcast_to(coeffs[None], (cameras, points, k, 3))
    return _SphericalHarmonics.apply(coeffs.contiguous(), dirs)  # expect: OOM131


def to_imported_autograd_function(colors, cameras, points, channels):
    colors = colors[None].expand(cameras, points, channels)
    return _RasterizeFn.apply(colors.contiguous())  # expect: OOM131


def to_runtime_callable(colors, cameras, points, channels):
    colors = colors[None].expand(cameras, points, channels)
    return _make_lazy_cuda_func("rasterize_fwd")(colors.contiguous())  # expect: OOM131


def to_package_named_like_torch(q_nope, k_rope_cached, num_heads):
    # `torch_npu` is another package (Ascend's kernels), not a module of torch: a copy handed to
    # it is made for that code, as for any vendor function.
    import torch_npu

    k_rope = k_rope_cached.expand(-1, num_heads, -1)
    return torch_npu.npu_fused_infer_attention_score(q_nope, key_rope=k_rope.contiguous())  # expect: OOM131
