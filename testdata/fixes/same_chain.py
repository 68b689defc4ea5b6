import torch


def expand_mask(mask: torch.Tensor, dtype: torch.dtype, tgt_len: int):
    bsz, src_len = mask.size()
    expanded_mask = mask[:, None, None, :].expand(bsz, 1, tgt_len, src_len).to(dtype)
    inverted_mask = 1.0 - expanded_mask
    return inverted_mask.masked_fill(inverted_mask.to(torch.bool), torch.finfo(dtype).min)


def multiline(scores, mask, b, h, s):
    m = (
        mask  # the padding mask
        .expand(b, h, s, s)  # broadcast over heads
        .bool()
    )
    return scores.masked_fill(m, 0.0)


def token_embeds(ids, batch_size, seq_len):
    pos = ids[None, None, :].expand(batch_size, seq_len, -1).long()
    return pos.sum()


def repeated(x, n):
    y = x.repeat(n, 1).float()
    return y + 1
