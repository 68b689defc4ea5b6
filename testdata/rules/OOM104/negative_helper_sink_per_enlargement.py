# Not OOM104 (nor OOM113): the same helper reached by two calls, each passing a repeated copy that
# the caller also reads elsewhere: resizing first would need a second repeat for those reads, so
# neither enlargement, judged on its own at the helper's sink, is worth a finding.
import torch
import torch.nn.functional as F


def resize_video_to(video, target_image_size, target_frames, mode="nearest"):
    target_shape = (target_frames, target_image_size, target_image_size)
    return F.interpolate(video, target_shape, mode=mode)


def condition(x, cond_frames, cond_images):
    doubled = torch.cat((cond_frames, cond_frames), dim=1)
    resized = resize_video_to(doubled, x.shape[-1], x.shape[2])
    tiled = cond_images.repeat(1, 1, 4, 1, 1)
    stretched = resize_video_to(tiled, x.shape[-1], x.shape[2])
    return torch.cat((resized, doubled, stretched, tiled, x), dim=1)
