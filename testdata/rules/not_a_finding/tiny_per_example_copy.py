# A few copies of one example's tensor, whose own size the code does not show: classifier-free
# guidance latents (`torch.cat([latents] * 2)`), image embeddings repeated per prompt, affine
# matrices or crop sizes per batch item, a learned table expanded over the batch. Every size the
# enlargement grows is the batch, a count of copies per example, or a literal factor of at most 8,
# so the reorder saves at most a few copies of one example: not reported at the default
# `min-static-bytes` (`min-static-bytes = 0` shows them).
import numpy as np
import torch


def cfg_latents(latents, dtype):
    latent_model_input = torch.cat([latents] * 2)
    return latent_model_input.to(dtype)


def size_ids(original_size, dtype):
    return torch.cat([original_size, original_size]).to(dtype)


def image_embeds_per_item(image_embeds, batch_size, transformer_dtype):
    image_embeds = image_embeds.repeat(batch_size, 1, 1)
    return image_embeds.to(transformer_dtype)


def per_prompt(prompt_embeds, batch_size, num_images_per_prompt):
    embeds = prompt_embeds.repeat(batch_size * num_images_per_prompt, 1, 1)
    return embeds.half()


def affine_per_item(pad_affine, theta):
    return pad_affine.repeat(theta.shape[0], 1, 1).double()


def doubled_pattern(delay_pattern):
    return delay_pattern.repeat_interleave(2, dim=0).float()


def block_index_per_item(rand_attn, batch_size):
    return rand_attn.unsqueeze(0).expand(batch_size, *rand_attn.shape).float()


def first_item_batch(inputs, other_batch):
    return inputs[:1].expand(other_batch, *inputs.shape[1:]).float()


def grid_per_item(grid, batch_size, scale):
    # A learned or computed table of unknown extent, kept by `-1`: `[B, *, *, *]`.
    return (grid.unsqueeze(0).expand(batch_size, -1, -1, -1) + 0.5) / scale


def beams_to_cuda(token_lists, num_beams):
    # Host-made ids moved after the beam copy: a real crossing, but of a few ids per example.
    input_ids = torch.tensor(token_lists)
    return input_ids.repeat_interleave(num_beams, dim=0).cuda()


def cfg_mask_to_device(mask_np: np.ndarray, latents):
    mask = torch.from_numpy(mask_np)
    mask = torch.cat([mask] * 2)
    return mask.to(latents.device)


def cfg_padding(attention_mask):
    mask = torch.cat([attention_mask] * 2)
    return mask == 0


def slopes_per_item(slopes, batch_size):
    return slopes.repeat(batch_size, 1).exp()
