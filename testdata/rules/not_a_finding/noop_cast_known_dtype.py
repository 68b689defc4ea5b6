# Casts to the dtype the value already has return the tensor itself: nothing is copied. The dtype
# is known from a factory's `dtype=`, `arange` of ints, comparisons and logical ops, `isin`, an
# earlier cast of the same value, or `.to(m.dtype)` of a value made from `m`.
import torch


def factory_dtype(b, h, q, k):
    mask = torch.ones(q, k, dtype=torch.bool).tril()
    return mask[None, None].expand(b, h, q, k).bool()


def arange_is_int64(seq_len, batch_size):
    position_ids = torch.arange(seq_len).unsqueeze(0).expand(batch_size, -1)
    return position_ids.long()


def comparison_is_bool(input_ids, pad_token_id, heads, q_len):
    mask = input_ids == pad_token_id
    return mask[:, None, None, :].expand(-1, heads, q_len, -1).bool()


def method_comparison_is_bool(input_ids, pad_token_id, q_len):
    mask = input_ids.ne(pad_token_id)
    return mask.unsqueeze(1).expand(-1, q_len, -1).to(torch.bool)


def logical_ops_are_bool(a, b, q_len):
    m = (a > 0) & ~(b < 0)
    return m.unsqueeze(1).expand(-1, q_len, -1).bool()


def isin_is_bool(input_ids, special_ids, hidden):
    m = torch.isin(input_ids, special_ids)
    return m.unsqueeze(-1).expand(-1, -1, hidden).bool()


def earlier_cast(m, b, q):
    m = m.bool()
    m = m[:, None, :]
    return m.expand(b, q, -1).bool()


def to_own_dtype(m, b, q):
    m = m.float()
    e = m[:, None, :].expand(b, q, -1)
    return e.to(m.dtype)


def same_dtype_by_name(hidden_states, batch_size, heads, seq_length):
    # Built in `hidden_states.dtype`, cast back to it: a no-op whatever that dtype is.
    causal_mask = torch.full(
        (seq_length, seq_length),
        torch.finfo(hidden_states.dtype).min,
        dtype=hidden_states.dtype,
        device=hidden_states.device,
    )
    causal_mask = torch.triu(causal_mask, 1)
    extended = causal_mask[None, None, :, :].expand(batch_size, heads, seq_length, seq_length)
    return extended.to(hidden_states.dtype)


def to_dtype_of_source(m, b, q):
    e = m[:, None, :].expand(b, q, -1)
    return e.to(m.dtype)


def key_padding_mask(x, pad_idx):
    return x.eq(pad_idx)


def attn_mask(x, pad_idx, heads):
    # The helper in this file returns a comparison: already bool.
    srcmask = key_padding_mask(x, pad_idx)
    return srcmask.unsqueeze(-1).repeat(heads, 1, x.shape[1]).permute(0, 2, 1).bool()


def index_is_int64(target_ordering, positions_xy):
    # `argsort` (like `argmax`, `nonzero`, `torch.randperm`) gives int64 indices.
    perm = target_ordering.long().argsort(dim=-1)
    perm_pos = perm.unsqueeze(-1).expand_as(positions_xy)
    return positions_xy.float().gather(-2, perm_pos.long())
