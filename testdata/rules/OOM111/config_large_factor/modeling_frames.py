# Look-alike of not_a_finding/config_small_factor/: the repeat count comes from the model's
# configuration too, but the configuration states 64 frames, not a factor of a few copies, or the
# factor is a count of heads (8 here: small, but a mask repeated over heads is a real
# enlargement): the copy of a tensor of unknown extent is reported.
import torch


class FrameEmbeddings(torch.nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.num_heads = config.num_attention_heads
        self.proj = torch.nn.Conv3d(3, config.hidden_size, kernel_size=(2, 16, 16))

    def forward(self, pixel_values):
        frames = pixel_values.repeat(1, 1, self.config.num_frames, 1, 1)
        frames = frames.to(dtype=self.proj.weight.dtype)  # expect: OOM111
        return self.proj(frames)

    def head_mask(self, mask, dtype):
        mask = mask.repeat(1, self.num_heads, 1, 1)
        return mask.to(dtype)  # expect: OOM111
