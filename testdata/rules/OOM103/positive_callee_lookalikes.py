# OOM103: the look-alikes of negative_written_by_callee.py. A function that only reads its
# parameter, one that writes a copy of it (rebound first), one that writes a different parameter,
# one that writes a tensor gathered from it (a gather copies), and a class whose methods only read
# the copy stored on `self`: the copy is not needed, still reported.
import torch


def total_of(values):
    return values.sum()


def shifted_(values, i):
    values = values.clone()
    values[..., i] = 0
    return values


def write_other_(values, out, i):
    out[..., i] = values[..., i]


def write_gathered_(values, idx):
    picked = values[idx]
    picked[0] = 1
    return picked


def read_only(base, batch_size, num_heads, seq_len):
    perm = base[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).contiguous()  # expect: OOM103
    return total_of(perm)


def rebound_first(base, batch_size, num_heads, seq_len, i):
    perm = base[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).contiguous()  # expect: OOM103
    return shifted_(perm, i) + perm


def other_parameter(base, batch_size, num_heads, seq_len, out, i):
    perm = base[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).contiguous()  # expect: OOM103
    write_other_(perm, out, i)
    return out


def gathered(base, batch_size, num_heads, seq_len, idx):
    perm = base[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).contiguous()  # expect: OOM103
    return write_gathered_(perm, idx)


class Reader:
    def __init__(self, base, batch_size, num_heads, seq_len):
        self.perm = base[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).contiguous()  # expect: OOM103

    def total(self):
        return total_of(self.perm)
