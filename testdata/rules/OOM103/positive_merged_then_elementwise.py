# OOM103: a copy made by merging the dims of a broadcast view, whose reader is an elementwise op.
# The op broadcasts in the unmerged shape, on the view: the full-size copy is avoidable (timm's
# group statistics reshaped to [B, C, H, W] and divided into the activations; Swin's shifted-window
# mask reshaped to [B*nW, H, N, N] and added to the position bias).
import torch


def group_rms(x, groups: int = 32, eps: float = 1e-5):
    B, C, H, W = x.shape
    x = x.reshape(B, groups, C // groups, H, W)
    rms = x.float().square().mean(dim=(2, 3, 4), keepdim=True).add(eps).sqrt()
    return rms.expand(x.shape).reshape(B, C, H, W)  # expect: OOM103


def evo_norm(x, groups):
    return x / group_rms(x, groups)


def window_bias(bias, mask, B_, num_heads, N):
    num_win = mask.shape[0]
    mask = mask.view(1, num_win, 1, N, N).expand(B_ // num_win, -1, num_heads, -1, -1)
    return bias + mask.reshape(-1, num_heads, N, N)  # expect: OOM103
