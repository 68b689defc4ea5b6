# OOM104 in a helper reached by two calls with different enlargements: first a repeated copy of
# conditioning frames (its resize is not worth a finding: the copy is also read elsewhere), then
# a conditioning image expanded over the frames by einops (a stride-0 view) and resized as a
# video. The helper's sink is judged once per enlargement that reaches it, so the second is
# reported: resize the image first, then repeat it over the frames.
import torch
import torch.nn.functional as F
from einops import repeat


def resize_video_to(video, target_image_size, mode="nearest"):
    frames = video.shape[2]
    target_shape = (frames, target_image_size, target_image_size)
    if tuple(video.shape[-3:]) == target_shape:
        return video
    return F.interpolate(video, target_shape, mode=mode)  # expect: OOM104


def condition(x, cond_frames, cond_images):
    # x: [b, c, f, H, W]; cond_frames: [b, c, f2, h, w]; cond_images: [b, c, h, w]
    cond_frames = torch.cat((cond_frames, cond_frames), dim=1)
    cond_frames = resize_video_to(cond_frames, x.shape[-1])
    x = torch.cat((cond_frames, x), dim=2)
    cond_images = repeat(cond_images, "b c h w -> b c f h w", f=x.shape[2])
    cond_images = resize_video_to(cond_images, x.shape[-1])
    return torch.cat((cond_images, x), dim=1)
