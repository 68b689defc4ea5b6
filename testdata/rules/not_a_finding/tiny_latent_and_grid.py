# Latent-space and grid-sized tensors: the pattern is real (a broadcast, then a cast, copy or
# move), but the extents are sides of a downsampled grid, not of an image. A diffusion pipeline's
# latents are the image downsampled 8 times by its VAE (a 512 px side is 64), a vision encoder's
# patch grid is smaller still, and a hidden-size feature map is a grid of patches. Integer ids
# over one extent (position ids, patch row/column ids, length masks) are one integer per token.
# None of these is near `min-static-bytes` at realistic sizes: not reported.
# (`--min-static-bytes 0` shows every one of them.)
import torch


def sag_style_mask(attn_mask, original_latents, attn_map):
    # A latent-size mask repeated over the latent channels, then cast.
    b, latent_channel, latent_h, latent_w = original_latents.shape
    mask = attn_mask.reshape(b, 1, latent_h, latent_w).repeat(1, latent_channel, 1, 1)
    return mask.type(attn_map.dtype)


def repaint_mask(latent_length, batch_size, acoustic_dim, device):
    # A per-frame mask of an audio latent, expanded over the latent channels, then copied.
    mask_1d = torch.zeros(latent_length, device=device)
    return mask_1d.unsqueeze(0).unsqueeze(-1).expand(batch_size, -1, acoustic_dim).clone()


def latent_image_ids(batch_size, height, width, device, dtype):
    # A position-id table of the latent grid made on the host, repeated over the batch, then
    # moved and cast.
    ids = torch.zeros(height, width, 3)
    ids[..., 1] = ids[..., 1] + torch.arange(height)[:, None]
    latent_image_id_height, latent_image_id_width, latent_image_id_channels = ids.shape
    ids = ids.repeat(batch_size, 1, 1, 1)
    ids = ids.reshape(batch_size, latent_image_id_height * latent_image_id_width, latent_image_id_channels)
    return ids.to(device=device, dtype=dtype)


def video_position_ids(grid_t, grid_h, grid_w, spatial_offset):
    # Position ids over a video's patch grid, copied flat and offset afterwards.
    h_index = torch.arange(grid_h, dtype=torch.long).view(1, -1, 1).expand(grid_t, -1, grid_w).flatten()
    w_index = torch.arange(grid_w, dtype=torch.long).view(1, 1, -1).expand(grid_t, grid_h, -1).flatten()
    h_index = h_index + spatial_offset
    w_index = w_index + spatial_offset
    return torch.stack([h_index.to(torch.float32), w_index.to(torch.float32)])


def image_newline(self, x, dtype):
    # A learned `[D]` vector expanded over the batch and the rows of a feature grid.
    batch_size, channels, height, width = x.shape
    newline = self.image_newline.reshape(1, channels, 1, 1).expand(batch_size, channels, height, 1)
    return newline.to(dtype)


def patch_row_ids(rows, columns, batch_size):
    # Row ids of a patch grid `[B, rows * columns, 1]`, int64, then offset by one.
    row_ids = torch.arange(rows).reshape(rows, 1).repeat(1, columns).reshape(rows * columns, 1)
    row_ids = row_ids.unsqueeze(0).expand(batch_size, -1, -1)
    return row_ids + 1


def audio_length_mask(num_audios, max_audio_tokens, lengths):
    # `[num_audios, max_tokens]` ids compared with the lengths, on the lengths' device.
    ids = torch.arange(max_audio_tokens).expand(num_audios, max_audio_tokens)
    return ids.to(lengths.device) < lengths[:, None]


def cfg_branches(latents, num_cfg, transformer_dtype):
    # One copy of the latents per guidance branch plus the conditional one.
    latent_model_input = torch.cat([latents] * (num_cfg + 1))
    return latent_model_input.to(transformer_dtype)


def grounding_phrases(text_embeddings, repeat_batch, max_objs, cross_attention_dim):
    # Phrase embeddings of a few boxes, copied per example.
    embeds = text_embeddings.unsqueeze(0).expand(repeat_batch, max_objs, cross_attention_dim)
    return embeds.clone()
