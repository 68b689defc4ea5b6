# Look-alikes of not_a_finding/cast_first_saves_nothing.py that casting first does shrink
# (factor x itemsize(source) > itemsize(target)), or whose saving rests on something the analysis
# does not know: a factor guessed from a name, a source of unknown dtype. Those are "may"
# warnings whose note says what the saving depends on. (Module constants, not literals: a literal
# factor of a few is a per-example copy of a tensor of unknown extent.)
import torch

N_REP = 2
GROUPS = 4
WIDE = 8


def half_query_repeated_four_times(query, batch_size, seq_len, num_heads, head_dim):
    q = query.view(batch_size, seq_len, num_heads, head_dim).half()
    q = q.repeat_interleave(GROUPS, dim=2)
    return q.float()  # expect: OOM111


def bool_mask_repeated_eight_times(scores, batch_size, seq_len):
    keep = scores.view(batch_size, seq_len, seq_len) > 0
    keep = keep.repeat(1, 1, WIDE)
    return keep.to(torch.float32)  # expect: OOM111


def float_downcast_after_a_repeat_x2(query, batch_size, seq_len, num_heads, head_dim):
    q = query.view(batch_size, seq_len, num_heads, head_dim).float()
    q = q.repeat_interleave(N_REP, dim=2)
    return q.half()  # expect: OOM111


def half_query_repeated_by_a_guessed_factor(query, batch_size, seq_len, num_heads, head_dim, n_rep):
    q = query.view(batch_size, seq_len, num_heads, head_dim).half()
    q = q.repeat_interleave(n_rep, dim=2)
    return q.float()  # expect: OOM111


def query_of_unknown_dtype_repeated_twice(query, batch_size, seq_len, num_heads, head_dim):
    q = query.view(batch_size, seq_len, num_heads, head_dim)
    q = q.repeat_interleave(N_REP, dim=2)
    return q.float()  # expect: OOM111
