# A cast moved before an expand turns the dense result into a broadcast view. When that value is
# passed to code outside the project (another package's kernel wrapper, `torch.ops.*`), which may
# check strides, the fix is unsafe; passed to a function of the project, it stays safe.
import torch

from sparse_kernels import block_sparse_attention


def project_attention(q, idx):
    return q * idx


def to_vendor_kernel(q, ids, batch_size, num_heads, seq_len):
    idx = ids[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).to(torch.int32)
    return block_sparse_attention(q, idx)


def to_project_function(q, ids, batch_size, num_heads, seq_len):
    idx = ids[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).to(torch.int32)
    return project_attention(q, idx)
