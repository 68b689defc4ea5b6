# OOM121 repeat-instead-of-expand: a gather index repeated over a size-1 dim (vit_mae's masking);
# gather reads an expanded index as well.
import torch


def keep_patches(x, ids_keep, D):
    index = ids_keep.unsqueeze(-1).repeat(1, 1, D)  # expect: OOM121
    return torch.gather(x, dim=1, index=index)


def keep_patches_method(x, ids_keep, D):
    index = ids_keep.unsqueeze(-1).repeat(1, 1, D)  # expect: OOM121
    return x.gather(1, index)
