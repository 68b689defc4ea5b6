# Not a finding: the materialized tensor is passed as `out=`, i.e. written in place.
import torch


def accumulate(scores, mask, bsz, heads, q_len):
    buf = mask[:, None, None, :].expand(bsz, heads, q_len, -1).clone()
    torch.add(scores, 1.0, out=buf)
    return buf


def cast_into(bias, values, bsz, q_len, dtype):
    out = bias[:, None, :].expand(bsz, q_len, -1).to(dtype)
    torch.mul(values, 2.0, out=out)
    return out
