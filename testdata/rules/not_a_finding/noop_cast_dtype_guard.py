# A cast to the dtype that a branch test proves the tensor already has returns the tensor itself:
# `if m.dtype == torch.bool: m.bool()`, the `else` of `!=`, the code after an early
# `if m.dtype != torch.bool: return` / `raise`, the `else` of an `elif` chain whose tests ruled
# the other dtypes out, after `assert m.dtype is torch.bool`. Nothing is copied: not reported.
# Look-alikes where the test proves nothing there are in
# `testdata/rules/OOM101/positive_dtype_guard_lookalikes.py`.
import torch


def under_the_test(attention_mask, bsz, heads, q_len):
    mask = attention_mask[:, None, None, :].expand(bsz, heads, q_len, -1)
    if mask.dtype == torch.bool:
        mask = mask.bool()
    return mask


def else_of_not_equal(attention_mask, bsz, heads, q_len, scores):
    mask = attention_mask[:, None, None, :].expand(bsz, heads, q_len, -1)
    if mask.dtype is not torch.bool:
        return scores
    else:
        return scores.masked_fill(mask.bool(), 0.0)


def after_early_raise(attention_mask, bsz, heads, q_len):
    mask = attention_mask[:, None, None, :].expand(bsz, heads, q_len, -1)
    if mask.dtype != torch.bool:
        raise ValueError("a boolean mask is expected")
    return mask.to(torch.bool)


def guard_before_the_expand(attention_mask, bsz, heads, q_len, scores):
    if attention_mask.dtype != torch.float16:
        return scores
    mask = attention_mask[:, None, None, :].expand(bsz, heads, q_len, -1)
    return scores + mask.half()


def elif_chain(attention_mask, bsz, heads, q_len):
    mask = attention_mask[:, None, None, :].expand(bsz, heads, q_len, -1)
    if torch.float32 == mask.dtype:
        return mask.float()
    elif mask.dtype != torch.bool:
        raise TypeError(mask.dtype)
    else:
        return mask.bool()


def asserted(self, bsz, heads, q_len):
    assert self.mask.dtype is torch.bool and bsz > 0
    return self.mask[:, None, None, :].expand(bsz, heads, q_len, -1).bool()
