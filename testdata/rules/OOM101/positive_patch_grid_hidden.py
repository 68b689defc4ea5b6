# Look-alikes of grid position ids that are large: a table expanded over the batch, the patch grid
# and the hidden size is `[batch, grid_h, grid_w, hidden]`, a hidden-size activation per patch.
import torch


def patch_embeddings(pos_table, batch_size, grid_h, grid_w, hidden_size):
    pos = pos_table[None, :, :, :].expand(batch_size, grid_h, grid_w, hidden_size)
    return pos.float()  # expect: OOM101


def frame_embeddings(frame_table, batch_size, grid_t, grid_h, grid_w, embed_dim):
    emb = frame_table[None, :, None, None, :].expand(batch_size, grid_t, grid_h, grid_w, embed_dim)
    return emb.half()  # expect: OOM101
