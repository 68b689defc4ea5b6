# Position ids over a grid of patches or merged tokens (multimodal rope): `arange` of a grid side
# expanded over the frames and the other side, then flattened to one index per vision token. A
# grid side (`llm_grid_h`, `grid_w`, `grid_t`) counts patches, not pixels (64 a side: a 1024 px
# image at 16 px patches), so the index is a few hundred KiB. Not reported at the default
# `min-static-bytes`.
import torch


def vision_position_ids(t_index, grid_hs, grid_ws, vision_idx, spatial_merge_size):
    llm_grid_h = grid_hs[vision_idx] // spatial_merge_size
    llm_grid_w = grid_ws[vision_idx] // spatial_merge_size
    h_index = torch.arange(llm_grid_h).view(1, -1, 1).expand(len(t_index), -1, llm_grid_w).flatten().float()
    w_index = torch.arange(llm_grid_w).view(1, 1, -1).expand(len(t_index), llm_grid_h, -1).flatten().float()
    return torch.stack([h_index, w_index])


def video_position_ids(grid_t, grid_h, grid_w):
    t_index = torch.arange(grid_t).view(-1, 1, 1).expand(-1, grid_h, grid_w).flatten()
    return t_index.float()
