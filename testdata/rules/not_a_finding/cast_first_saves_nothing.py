# A cast of a repeated copy that casting first would not shrink. For a copy of n elements by a
# factor r and a cast from s to d bytes per element, the current order allocates r*n*s then
# r*n*d; casting first allocates n*d then r*n*d. Nothing is saved when r*s <= d: a repeat x2 of
# float16 cast to float32, a repeat of at most x4 of bool cast to float32. The factor is a
# literal or a constant and the source dtype is known, so this is no finding at any size.
# (Look-alikes that save, and ones whose saving rests on a guess: OOM111/positive_cast_first_saves.py.)
import torch

N_REP = 2


def half_query_repeated_twice(query, batch_size, seq_len, num_heads, head_dim):
    q = query.view(batch_size, seq_len, num_heads, head_dim).half()
    q = q.repeat_interleave(2, dim=2)
    return q.float()


def bf16_query_repeated_by_a_constant(query, batch_size, seq_len, num_heads, head_dim):
    q = query.view(batch_size, seq_len, num_heads, head_dim).to(torch.bfloat16)
    q = q.repeat_interleave(N_REP, dim=2)
    return q.to(torch.float32)


def bool_mask_repeated_four_times(scores, batch_size, seq_len):
    keep = scores.view(batch_size, seq_len, seq_len) > 0
    keep = keep.repeat(1, 1, 4)
    return keep.to(torch.float32)
