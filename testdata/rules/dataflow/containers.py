# Dataflow: elements of dicts, lists and tuples built in a function keep their facts; a tuple
# of enlarged values returned by a helper reaches its callers element by element.
import torch


def dict_element(attention_mask, bsz, heads, q_len):
    d = {}
    d["mask"] = attention_mask[:, None, None, :].expand(bsz, heads, q_len, -1)
    return d["mask"].float()  # expect: OOM101


def dict_display(attention_mask, bsz, heads, q_len):
    inputs = {"mask": attention_mask[:, None, None, :].expand(bsz, heads, q_len, -1), "n": heads}
    return inputs["mask"].to(torch.bfloat16)  # expect: OOM101


def tuple_element(attention_mask, bsz, heads, q_len):
    pair = (attention_mask, attention_mask[:, None, None, :].expand(bsz, heads, q_len, -1))
    return pair[1].bool()  # expect: OOM101


def list_element_store(attention_mask, bsz, heads, q_len):
    masks = [None, None]
    masks[0] = attention_mask[:, None, None, :].expand(bsz, heads, q_len, -1)
    return masks[0].half()  # expect: OOM101


def _pair(attention_mask, bsz, heads, q_len):
    return attention_mask[:, None, None, :].expand(bsz, heads, q_len, -1), attention_mask


def tuple_from_helper(attention_mask, bsz, heads, q_len):
    mask, plain = _pair(attention_mask, bsz, heads, q_len)
    return mask.float(), plain.float()  # expect: OOM101


def returned_dict(attention_mask, bsz, heads, q_len):
    out = {}
    out["mask"] = attention_mask[:, None, None, :].expand(bsz, heads, q_len, -1)
    return out


def dict_from_helper(attention_mask, bsz, heads, q_len):
    return returned_dict(attention_mask, bsz, heads, q_len)["mask"].float()  # expect: OOM101
