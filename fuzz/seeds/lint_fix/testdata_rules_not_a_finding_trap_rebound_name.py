# Look-alike traps: the enlarged name is rebound to an ordinary tensor before the cast.
import torch


def rebound(attention_mask, bsz, q_len):
    mask = attention_mask[:, None, :].expand(bsz, q_len, -1)
    mask = attention_mask
    return mask.float()


def rebound_in_both_branches(attention_mask, flag, bsz, q_len):
    mask = attention_mask[:, None, :].expand(bsz, q_len, -1)
    if flag:
        mask = attention_mask.unsqueeze(1)
    else:
        mask = attention_mask[:, None, :]
    return mask.to(torch.float16)


def deleted_and_recreated(attention_mask, bsz, q_len):
    mask = attention_mask[:, None, :].expand(bsz, q_len, -1)
    del mask
    mask = torch.ones(bsz, q_len)
    return mask.half()
