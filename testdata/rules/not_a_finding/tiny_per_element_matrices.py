# A small fixed-size matrix (a 3 x 3 rotation, a 4 x 4 affine) copied over a starred list of batch
# dims: the growth is the batch dims, the extent per element is a few numbers. A few copies per
# example of a tensor whose extent the code does not show: not reported at the default
# `min-static-bytes`. (Starred dims that are not batch dims are reported:
# OOM103/positive_starred_dims.py.)
import torch


def identity_rot_mats(batch_dims, dtype=None, device=None):
    rots = torch.eye(3, dtype=dtype, device=device)
    rots = rots.view(*((1,) * len(batch_dims)), 3, 3)
    rots = rots.expand(*batch_dims, -1, -1)
    rots = rots.contiguous()
    return rots


def identity_affines(self, pad):
    eye = torch.eye(4).view(1, 1, 4, 4)
    return eye.expand(*self.batch_shape, -1, -1).to(pad.dtype)
