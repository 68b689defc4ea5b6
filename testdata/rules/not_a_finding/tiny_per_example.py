# Small per-example tensors made as large as the batch (or a handful of items), then converted:
# `[B]` timesteps and sigmas, `[B, 1]` ids, `[B, D]` vectors, `[B, 3, 3]` matrices, `[B, 4, 2]`
# points. The reorder saves kilobytes: not reported at the default `min-static-bytes`.
import torch


def timesteps_for_batch(timestep, sample):
    # A 0-d or 1-d timestep broadcast to the batch: `[B]`.
    timesteps = timestep.expand(sample.shape[0])
    return timesteps.to(sample.dtype)


def sigma_per_sample(sigma, batch_size, device):
    return sigma.expand(batch_size).to(device)


def timesteps_by_len(t, latents):
    return t.expand(latents.size(0)).float()


def timestep_column(t, batch_size):
    # `[B, constant]` of a 0-d value.
    return t.expand(batch_size, 1).float()


def rope_deltas_ids(rope_deltas, bsz):
    # `[bsz, 1]` ids.
    return rope_deltas.expand(bsz, 1).to(torch.int32)


def class_token(cls_token, batch_size, device):
    # A learned `[1, D]` vector per example: `[B, D]`.
    return cls_token.expand(batch_size, -1).to(device)


def per_example_embedding(emb, bsz, hidden_size):
    return emb[None, :].expand(bsz, hidden_size).contiguous()


def identity_matrices(batch_size):
    eye = torch.eye(3)
    return eye[None].expand(batch_size, 3, 3).clone()


def homography_points(points_src, batch_size):
    return points_src.expand(batch_size, -1, -1).float()


def label_ids(labels, num_images_per_prompt):
    return labels[:, None].repeat(1, num_images_per_prompt).long()
