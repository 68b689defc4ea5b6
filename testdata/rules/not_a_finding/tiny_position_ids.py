# Position ids and index tensors over one extent, expanded over the batch and then cast or moved:
# the pattern is real, but `[B, S]` ids are a few hundred KiB at realistic sizes (batch 8, 4k
# tokens), far below `min-static-bytes`. Not reported. (These were OOM101 positives once.)
import torch


def rotary_positions(seq_len, batch_size, device):
    position_ids = torch.arange(seq_len, device=device).unsqueeze(0).expand(batch_size, -1)
    return position_ids.float()


def half_positions(seq_len, batch_size, device):
    pos = torch.arange(seq_len, device=device)[None, :].expand(batch_size, seq_len)
    return pos.half()


def positions_to_literal_dtype(position_ids, batch_size):
    position_ids = position_ids.expand(batch_size, -1)
    return position_ids.to(torch.float32)


def token_type_ids(buffered_token_type_ids, batch_size, seq_length):
    # BERT-style buffer expanded to the batch, then cast to int32 for a kernel.
    ids = buffered_token_type_ids[:, :seq_length].expand(batch_size, seq_length)
    return ids.int()


def mrope_position_ids(cache_length, seq_length, batch_size, inputs_embeds):
    # Multimodal rope: `[3, B, S]` int64 ids moved to the device.
    position_ids = torch.arange(cache_length, cache_length + seq_length)
    position_ids = position_ids.view(1, 1, -1).expand(3, batch_size, -1).to(inputs_embeds.device)
    return position_ids


def image_positions(patches):
    batch_size, image_len, _ = patches.shape
    image_pos = torch.arange(image_len).unsqueeze(0).expand(batch_size, -1)
    return image_pos.to(patches.device)


def grid_ids(grid_h, grid_w):
    # A position-id grid over the image patches.
    h_ids = torch.arange(grid_h).unsqueeze(1).expand(-1, grid_w)
    return h_ids.flatten().contiguous()
