# OOM121: a gather index repeated over two or more size-1 dims, each a size read off a tensor: a
# whole map per gathered row (pp_doclayout's mask selection, [B, Q, H, W] int64). gather reads an
# expanded index as well.
import torch


def select_masks(masks, index):
    return masks.gather(
        dim=1, index=index.unsqueeze(-1).unsqueeze(-1).repeat(1, 1, masks.shape[-2], masks.shape[-1])  # expect: OOM121
    )


def select_maps(maps, ids):
    return torch.gather(maps, 1, ids[:, :, None, None].repeat(1, 1, maps.size(2), maps.size(3)))  # expect: OOM121
