# The op table says `isin` is bool: a `.float()` of its expansion is a real cast.
import torch


def special_token_mask(input_ids, special_ids, batch_size, num_heads, seq_len):
    keep = torch.isin(input_ids, special_ids)
    mask = keep[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len)
    return mask.float()  # expect: OOM101
