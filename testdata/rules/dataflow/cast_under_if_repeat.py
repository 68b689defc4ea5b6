# Dataflow: a cast under an `if` with no `else`, of a repeated copy whose name is read again
# after the `if`. On the path that casts, the name then holds the cast result: the copy was read
# only by the cast, so repeating the converted tensor there saves a full-size copy.
import torch


def cast_when_asked(x, flag, bsz, heads, q_len):
    r = x[:, None, None, :].repeat(bsz, heads, q_len, 1)
    if flag:
        r = r.float()  # expect: OOM111
    return r


def elif_branch(x, mode, bsz, heads, q_len):
    r = x[:, None, None, :].repeat(bsz, heads, q_len, 1)
    if mode == "half":
        r = r.half()  # expect: OOM111
    elif mode == "float":
        r = r.float()  # expect: OOM111
    return r.sum(-1)


def view_cast_under_if(mask, flag, bsz, heads, q_len):
    m = mask[:, None, None, :].expand(bsz, heads, q_len, -1)
    if flag:
        m = m.bool()  # expect: OOM101
        print("cast")
    return m
