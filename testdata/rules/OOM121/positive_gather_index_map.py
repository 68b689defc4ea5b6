# OOM121: a gather index repeated over size-1 dims by sizes read off a tensor: two or more (a whole
# map per gathered row: pp_doclayout's mask selection, [B, Q, H, W] int64), or one when the index is
# not a top-k selection (vit_mae's unshuffle). gather reads an expanded index as well.
import torch


def select_masks(masks, index):
    return masks.gather(
        dim=1, index=index.unsqueeze(-1).unsqueeze(-1).repeat(1, 1, masks.shape[-2], masks.shape[-1])  # expect: OOM121
    )


def select_maps(maps, ids):
    return torch.gather(maps, 1, ids[:, :, None, None].repeat(1, 1, maps.size(2), maps.size(3)))  # expect: OOM121


def unshuffle(hidden_states, mask_token, ids_restore):
    # vit_mae's decoder: a full permutation (not a top-k), repeated by the hidden size read off a
    # tensor, then moved to the device: the expanded index moves as well.
    tokens = torch.cat([hidden_states[:, 1:, :], mask_token], dim=1)
    return torch.gather(
        tokens,
        dim=1,
        index=ids_restore.unsqueeze(-1).repeat(1, 1, hidden_states.shape[2]).to(tokens.device),  # expect: OOM121
    )
