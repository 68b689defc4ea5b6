# Dtype tests that prove nothing where the cast is: the cast is on the path where the test failed,
# after the join with a path that did not test, under an `or`, in a branch whose test ruled out
# another dtype, or the tested tensor is another one. Still OOM101.
import torch


def after_the_branch_returned(attention_mask, bsz, heads, q_len):
    mask = attention_mask[:, None, None, :].expand(bsz, heads, q_len, -1)
    if mask.dtype == torch.bool:
        return mask
    return mask.bool()  # expect: OOM101


def after_the_join(attention_mask, bsz, heads, q_len, flag):
    mask = attention_mask[:, None, None, :].expand(bsz, heads, q_len, -1)
    if mask.dtype == torch.bool:
        flag = not flag
    return mask.bool(), flag  # expect: OOM101


def under_an_or(attention_mask, bsz, heads, q_len, flag):
    mask = attention_mask[:, None, None, :].expand(bsz, heads, q_len, -1)
    if flag or mask.dtype == torch.bool:
        mask = mask.bool()  # expect: OOM101
    return mask


def other_dtype_ruled_out(attention_mask, bsz, heads, q_len):
    mask = attention_mask[:, None, None, :].expand(bsz, heads, q_len, -1)
    if mask.dtype != torch.bool:
        mask = mask.half()  # expect: OOM101
    return mask


def another_tensor_tested(attention_mask, padding, bsz, heads, q_len):
    mask = attention_mask[:, None, None, :].expand(bsz, heads, q_len, -1)
    if padding.dtype == torch.bool:
        mask = mask.bool()  # expect: OOM101
    return mask


def rebound_after_the_test(attention_mask, scores, bsz, heads, q_len):
    if attention_mask.dtype == torch.bool:
        attention_mask = scores[:, 0, 0, :]
        mask = attention_mask[:, None, None, :].expand(bsz, heads, q_len, -1)
        return mask.bool()  # expect: OOM101
    return scores
