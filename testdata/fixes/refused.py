import torch


def used_between(scores, mask, b, h, s):
    m = mask.expand(b, h, s, s)
    print(m.shape)
    m = m.bool()
    return scores.masked_fill(m, 0.0)


def intermediate_used_later(scores, bias, b, s):
    expanded = bias[:, None, :].expand(b, s, -1)
    weights = expanded.float()
    return scores + weights + expanded


def not_a_method_enlarger(scores, x, shape):
    y = torch.broadcast_to(x, shape).float()
    return scores + y


def cast_under_if(mask, flag, b, h, s):
    # Folding the cast into the first statement would convert on the path that does not.
    m = mask[:, None, None, :].expand(b, h, s, -1)
    if flag:
        m = m.bool()
        print("converted")
    return m


def repeat_cast_under_if(x, flag, b, h, s):
    r = x[:, None, None, :].repeat(b, h, s, 1)
    if flag:
        r = r.float()
    return r


def elementwise_under_if(mask, flag, b, h, s):
    m = mask[:, None, None, :].expand(b, h, s, -1)
    if flag:
        m = m * 2
        print("scaled")
    return m


def cast_reads_a_name_bound_between(attention_masks, hidden_states, num_heads):
    # The cast reads `dtype`, bound after the repeat: moved up, it would read it before it exists.
    attention_masks = attention_masks[:, None, :, :]
    attention_masks = attention_masks.repeat(1, num_heads, 1, 1)
    dtype = hidden_states.dtype
    attention_masks = attention_masks.to(dtype=dtype)
    return attention_masks.masked_fill(attention_masks > 0, 0.0), attention_masks
