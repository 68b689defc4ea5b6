# A copy of a tensor of unknown extent by a factor the model's configuration states as small
# (`tubelet_size = 2` in configuration_tubelet.py): a single image duplicated into one tubelet of
# two frames. It repeats one example's pixels twice, like a literal `repeat(1, 1, 2, 1, 1)`: not
# reported at the default `min-static-bytes`. (A factor the configuration states as large is
# reported: OOM111/config_large_factor/.)
import torch


class TubeletEmbeddings(torch.nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.proj = torch.nn.Conv3d(3, config.hidden_size, kernel_size=(2, 16, 16))

    def forward(self, pixel_values_videos, num_frames):
        if num_frames < self.config.tubelet_size:
            pixel_values_videos = pixel_values_videos.repeat(1, 1, self.config.tubelet_size, 1, 1)
        pixel_values_videos = pixel_values_videos.to(dtype=self.proj.weight.dtype)
        return self.proj(pixel_values_videos)
