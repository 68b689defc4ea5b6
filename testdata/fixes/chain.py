import torch


def expand_mask(mask: torch.Tensor, dtype: torch.dtype, tgt_len: int):
    # transformers' `_expand_mask`: cast, invert, fill; the result is returned.
    bsz, src_len = mask.size()
    expanded_mask = mask[:, None, None, :].expand(bsz, 1, tgt_len, src_len).to(dtype)

    inverted_mask = 1.0 - expanded_mask

    return inverted_mask.masked_fill(inverted_mask.to(torch.bool), torch.finfo(dtype).min)


def expand_mask_then_scale(mask: torch.Tensor, dtype: torch.dtype, tgt_len: int):
    # LED's variant: the filled mask is multiplied by the inverted one.
    bsz, src_len = mask.size()
    expanded_mask = mask[:, None, None, :].expand(bsz, 1, tgt_len, src_len).to(dtype)
    inverted_mask = 1.0 - expanded_mask
    expanded_attention_mask = inverted_mask.masked_fill(inverted_mask.bool(), torch.finfo(dtype).min)
    expanded_attention_mask = expanded_attention_mask * inverted_mask
    return expanded_attention_mask


def bool_then_invert(scores, mask, b, s):
    m = mask[:, None, :].expand(b, s, s)
    m = m.bool()
    m = ~m
    return scores.masked_fill(m, 0.0)


def bool_then_invert_new_name(scores, mask, b, s):
    keep = mask[:, None, :].expand(b, s, s).bool()
    drop = ~keep
    return scores.masked_fill(drop, 0.0)


def sub_then_scale(scores, mask, b, s, dtype: torch.dtype):
    ext = mask[:, None, None, :].expand(b, 1, s, s).to(dtype)
    ext = (1.0 - ext) * torch.finfo(dtype).min
    return scores + ext


def in_one_expression(scores, mask, b, s):
    ext = (1.0 - mask[:, None, None, :].expand(b, 1, s, s).float()) * -10000.0
    return scores + ext


def fill_with_its_own_test(scores, mask, b, s, dtype: torch.dtype):
    m = mask[:, None, :].expand(b, s, s).to(dtype)
    m = m.masked_fill(m == 0, -1e9)
    return scores + m


def returned_after_invert(mask, b, s):
    # The end value is returned: the last operation keeps making the full-size tensor.
    keep = mask[:, None, :].expand(b, s, s).bool()
    return ~keep


def intermediate_read_later(scores, mask, b, s):
    # `keep` is read after the chain: only the cast moves.
    keep = mask[:, None, :].expand(b, s, s).bool()
    drop = ~keep
    return scores.masked_fill(drop, 0.0), keep


def size_rebound_in_between(scores, mask, b, s):
    # `s` changes before the end of the chain: the expand cannot move past it.
    keep = mask[:, None, :].expand(b, s, s).bool()
    s = s + 0
    drop = ~keep
    return scores.masked_fill(drop, 0.0)[:, :s]


def other_tensor_operand(scores, mask, other, b, s):
    # `& other` may have other dims: the chain stops at the cast.
    keep = mask[:, None, :].expand(b, s, s).bool()
    drop = keep & other
    return scores.masked_fill(drop, 0.0)


def passed_to_a_call(scores, mask, b, s):
    # The end value is passed on: it may not become a view safely.
    keep = mask[:, None, :].expand(b, s, s).bool()
    drop = ~keep
    return torch.nn.functional.dropout(scores, 0.0) * torch.flatten(drop)[0]


def moved_to_a_device(scores, mask, b, s, device):
    # `.to(device)` is not an elementwise conversion: the chain stops before it.
    keep = mask[:, None, :].expand(b, s, s).bool()
    keep = keep.to(device)
    return scores.masked_fill(keep, 0.0)


class Layer(torch.nn.Module):
    def forward(self, scores, mask, b, s):
        # A method: the chain is followed in an indented function.
        keep = mask[:, None, :].expand(b, s, s).bool()
        drop = ~keep
        return scores.masked_fill(drop, 0.0)


def in_a_loop(scores, masks, b, s):
    # In a loop a name may be read by the next iteration: only the cast moves.
    out = scores
    for mask in masks:
        keep = mask[:, None, :].expand(b, s, s).bool()
        drop = ~keep
        out = out.masked_fill(drop, 0.0)
    return out


def same_name_throughout(scores, m, b, s):
    # `m = m.expand(...)` becomes a no-op once the expand moves: the line goes.
    m = m[:, None, :]
    m = m.expand(b, s, s)
    m = m.bool()
    m = ~m
    return scores.masked_fill(m, 0.0)
