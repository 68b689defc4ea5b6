# OOM101 cast-after-expand: views between the expand and the cast keep the value enlarged.
import torch


def through_transpose(mask, b, h, q, k):
    m = mask[:, None, None, :].expand(b, h, q, k)
    m = m.transpose(-1, -2)
    return m.short()  # expect: OOM101


def through_permute_and_slice(mask, b, h, q, k):
    m = mask[:, None, None, :].expand(b, h, q, k).permute(0, 2, 1, 3)
    m = m[:, :, None, ...]
    return m.char()  # expect: OOM101


def through_unsqueeze_squeeze(mask, b, q):
    m = mask.unsqueeze(1).expand(b, q, -1).unsqueeze(1).squeeze(1)
    return m.float()  # expect: OOM101


def through_view_same_rank(mask, b, h, q, k):
    m = mask[:, None, None, :].expand(b, h, q, k)
    m = m.view(b, h, 1, q, k)
    return m.half()  # expect: OOM101


def through_narrow_select_detach(mask, b, h, q, k):
    m = mask[:, None, None, :].expand(b, h, q, -1).detach()
    m = m.narrow(2, 0, q // 2).select(-1, 0)
    return m.to(torch.bfloat16)  # expect: OOM101


def through_movedim_and_mT(mask, b, q, k):
    m = mask[:, None, :].expand(b, q, k).movedim(0, -1).mT
    return m.bool()  # expect: OOM101
