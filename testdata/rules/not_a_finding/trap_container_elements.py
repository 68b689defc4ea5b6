# Look-alike traps: container elements that are not enlarged, elements replaced before the
# conversion, and tensors indexed by an integer (a row of a tensor is not the stored value).
import torch


def _pair(attention_mask, bsz, heads, q_len):
    return attention_mask[:, None, None, :].expand(bsz, heads, q_len, -1), attention_mask


def other_element_of_tuple(attention_mask, bsz, heads, q_len):
    mask, plain = _pair(attention_mask, bsz, heads, q_len)
    return plain.float(), mask


def element_replaced(attention_mask, bsz, heads, q_len):
    d = {"mask": attention_mask[:, None, None, :].expand(bsz, heads, q_len, -1)}
    d["mask"] = attention_mask
    return d["mask"].float()


def dict_updated(attention_mask, other, bsz, heads, q_len):
    d = {"mask": attention_mask[:, None, None, :].expand(bsz, heads, q_len, -1)}
    d.update(other)
    return d["mask"].float()


def stored_with_unknown_key(attention_mask, key, bsz, heads, q_len):
    d = {"mask": attention_mask[:, None, None, :].expand(bsz, heads, q_len, -1)}
    d[key] = attention_mask
    return d["mask"].float()


def other_key(attention_mask, bsz, heads, q_len):
    d = {"mask": attention_mask[:, None, None, :].expand(bsz, heads, q_len, -1), "ids": attention_mask}
    return d["ids"].float()


def written_into_a_tensor(out, attention_mask, bsz, heads, q_len):
    # `out[0] = view` copies into a row of `out`; `out[0]` is then an ordinary tensor.
    out[0] = attention_mask[None, None, :].expand(heads, q_len, -1)
    return out[0].float()


def rebound_container(attention_mask, bsz, heads, q_len):
    pair = (attention_mask[:, None, None, :].expand(bsz, heads, q_len, -1), attention_mask)
    pair = (attention_mask, attention_mask)
    return pair[0].float()


def cast_first_helper_tuple(attention_mask, bsz, heads, q_len):
    mask, plain = _pair(attention_mask.float(), bsz, heads, q_len)
    return mask, plain.half()


def _prompt_embeds(embeds, num_per_prompt):
    # A repeated copy returned in a tuple: its other readers at the call site are not counted
    # through the container, so its callers' conversions are left alone.
    return embeds.repeat(1, num_per_prompt, 1), None


def cast_of_repeated_element(embeds, num_per_prompt, dtype):
    embeds, _ = _prompt_embeds(embeds, num_per_prompt)
    return embeds.to(dtype)
