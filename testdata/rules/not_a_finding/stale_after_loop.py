# Not a finding: the enlarged value is replaced on every pass of a loop before the conversion
# after it (a denoising loop: `scheduler.step` returns new latents), so the conversion acts on the
# denoised value, not on the enlarged one.
import torch


class Pipeline:
    def prepare_latents(self, init, num_images):
        return torch.cat([init] * num_images)

    def __call__(self, init, num_images, timesteps, vae_dtype):
        latents = self.prepare_latents(init, num_images)
        for t in timesteps:
            noise_pred = self.unet(latents, t)
            latents = self.scheduler.step(noise_pred, t, latents).prev_sample
        return self.vae.decode(latents.to(vae_dtype))


def denoise_inline(init, num_images, timesteps, scheduler, unet, vae_dtype):
    latents = init.repeat(num_images, 1, 1, 1)
    for i, t in enumerate(timesteps):
        latents = scheduler.step(unet(latents, t), t, latents)
    return latents.to(vae_dtype)


def refine(mask, batch_size, layers):
    # Rebound from a non-enlarging expression inside the loop: not enlarged on the next pass.
    hidden = mask[:, None, :].expand(batch_size, 4, -1)
    while layers:
        hidden = layers.pop()(hidden)
    return hidden.float()
