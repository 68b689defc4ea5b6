# A function that returns an explicit `.clone()` of a broadcast view hands its callers memory of
# their own, which any of them (in any module) may write in place: the copy is what the function
# promises (kornia's `grayscale_to_rgb`). It is OOM131's (opt-in), not OOM103's.
import torch


def grayscale_to_rgb(image: torch.Tensor) -> torch.Tensor:
    if len(image.shape) < 3 or image.shape[-3] != 1:
        raise ValueError(f"Input size must have a shape of (*, 1, H, W). Got {image.shape}.")
    shape = list(image.shape)
    shape[-3] = 3
    return image.expand(*shape).clone()


def tiled_queries(query_embed, batch_size, num_queries, hidden_size):
    return torch.clone(query_embed[None].expand(batch_size, num_queries, hidden_size))
