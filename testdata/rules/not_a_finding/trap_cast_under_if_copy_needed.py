# Look-alike traps: a cast under an `if` of a repeated copy that is still read as the copy on
# the path through the cast (before it, in the branch, or in a loop that comes back to it).
import torch


def read_before_cast(x, flag, bsz, heads, q_len):
    r = x[:, None, None, :].repeat(bsz, heads, q_len, 1)
    total = r.sum()
    if flag:
        r = r.float()
    return r, total


def kept_under_other_name(x, flag, bsz, heads, q_len):
    r = x[:, None, None, :].repeat(bsz, heads, q_len, 1)
    if flag:
        y = r.float()
        print(y)
    return r


def in_a_loop(x, flag, bsz, heads, q_len):
    r = x[:, None, None, :].repeat(bsz, heads, q_len, 1)
    for _ in range(3):
        if flag:
            r = r.float()
        print(r)
    return r


def read_in_branch_after_cast(x, flag, bsz, heads, q_len):
    r = x[:, None, None, :].repeat(bsz, heads, q_len, 1)
    if flag:
        keep = r
        r = r.float()
        print(keep)
    return r


def copy_made_on_some_paths(x, flag, fast, gran):
    # The repeat itself is conditional: the read in the other branch keeps it out.
    if flag:
        x = x[:, None, None, :].repeat(gran, 32, 4096, 1)
    if fast:
        x = x.contiguous()
    else:
        x = x.float()
    return x
