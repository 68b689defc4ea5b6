# Device moves that copy nothing: the value already lives where it is moved, or nothing says it
# lives elsewhere. Only a value known to be made on the host (or known on a device, for `.cpu()`)
# is reported.
import torch


class Model:
    def get_placeholder_mask(self, input_ids, inputs_embeds):
        # transformers 5: the mask comes from `input_ids`, on the same device as `inputs_embeds`.
        special_image_mask = input_ids == self.config.image_token_id
        special_image_mask = special_image_mask.unsqueeze(-1)
        return special_image_mask.expand_as(inputs_embeds).to(inputs_embeds.device)

    def get_video_mask(self, input_ids, inputs_embeds):
        mask = input_ids.eq(self.config.video_token_id)
        return mask.unsqueeze(-1).expand_as(inputs_embeds).to(inputs_embeds.device)


def prepare_mask_latents(masked_image, vae, batch_size, dtype, device):
    # Moved earlier in the function: the later `.to` is defensive.
    masked_image = masked_image.to(device=device, dtype=dtype)
    latents = vae.encode(masked_image)
    if latents.shape[0] < batch_size:
        latents = latents.repeat(batch_size // latents.shape[0], 1, 1, 1)
    latents = torch.cat([latents] * 2)
    return latents.to(device=device, dtype=dtype)


def make_causal_mask(bsz, tgt_len, dtype, device):
    mask = torch.full((tgt_len, tgt_len), torch.finfo(dtype).min, device=device, dtype=dtype)
    return mask[None, None, :, :].expand(bsz, 1, tgt_len, tgt_len)


def prepare(bsz, tgt_len, inputs_embeds):
    # The helper built it on that device.
    mask = make_causal_mask(bsz, tgt_len, inputs_embeds.dtype, inputs_embeds.device)
    return mask.to(inputs_embeds.device)


def made_on_device(seq_len, batch_size, device):
    position_ids = torch.arange(seq_len, device=device)
    return position_ids.unsqueeze(0).expand(batch_size, -1).to(device)


def derived_from_device_tensors(hidden_states, lengths_on_device, heads):
    ones = hidden_states.new_ones(hidden_states.shape[:2])
    keep = torch.ones_like(lengths_on_device).unsqueeze(-1) * ones
    return keep[:, None].expand(-1, heads, -1, -1).cuda()


def unknown_origin(attention_mask, batch_size, num_heads, q_len, device):
    # A parameter: nothing says it is on the host.
    mask = attention_mask[:, None, None, :].expand(batch_size, num_heads, q_len, -1)
    return mask.to(device)


def host_value_kept_on_host(seq_len, batch_size):
    position_ids = torch.arange(seq_len).unsqueeze(0).expand(batch_size, -1)
    return position_ids.to("cpu")
