# OOM103: the look-alikes of not_a_finding/false_alarms/own_needed_copies.py. A function of the
# project, a module list indexed with `[i]`, and an `is_contiguous()` test outside an assert do
# not say the copy is needed. A `.clone()` passed to another package's function is not a layout
# copy (the author asked for memory of its own, not for a layout): still reported. (A
# `.contiguous()` handed to another package is OOM131's: testdata/rules/OOM131.)
import torch

from vendor_kernels import fused_scan_fn


def project_helper(x):
    return x * 2


def to_project_function(beta, batch_size, num_heads, seq_len):
    beta = beta[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).contiguous()  # expect: OOM103
    return project_helper(beta)


def to_layer_list(self, beta, batch_size, num_heads, seq_len):
    beta = beta[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).contiguous()  # expect: OOM103
    return self.layers[0](beta)


def tested_not_asserted(bias, batch_size, num_heads, seq_len):
    bias = bias[None].expand(batch_size, num_heads, seq_len, seq_len).contiguous()  # expect: OOM103
    if bias.is_contiguous():
        return bias.sum()
    return bias.mean()


def clone_to_vendor_function(beta, batch_size, num_heads, seq_len):
    beta = beta[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).clone()  # expect: OOM103
    return fused_scan_fn(beta)


def module_apply_on_instance(model, beta, batch_size, num_heads, seq_len):
    # `model.apply(fn)` is nn.Module's method on an instance, not autograd.Function's entry.
    beta = beta[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).contiguous()  # expect: OOM103
    model.apply(beta)
    return beta.sum()


def to_torch_function(beta, batch_size, num_heads, seq_len):
    # A function of torch itself accepts a broadcast view: the copy is not made for it.
    beta = beta[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).contiguous()  # expect: OOM103
    return torch.nn.functional.softplus(beta, beta=2.0)
