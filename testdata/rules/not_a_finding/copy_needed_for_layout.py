# Not a finding by default: copies of a broadcast view that the code needs for its layout (a merge
# of the broadcast dim by reshape/flatten/view) or for an in-place write. OOM131 (opt-in) reports
# them with the restructuring that would avoid them.
import torch


def repeat_kv(hidden_states: torch.Tensor, n_rep: int) -> torch.Tensor:
    batch, num_key_value_heads, slen, head_dim = hidden_states.shape
    if n_rep == 1:
        return hidden_states
    hidden_states = hidden_states[:, :, None, :, :].expand(batch, num_key_value_heads, n_rep, slen, head_dim)
    return hidden_states.reshape(batch, num_key_value_heads * n_rep, slen, head_dim)


def pair_mask(mask):
    batch_dim, seq_dim = mask.shape
    m = mask.unsqueeze(1).expand(batch_dim, seq_dim, seq_dim)
    m = m.reshape(batch_dim * seq_dim, seq_dim)
    return m


def mask_head_inputs(features, attention_masks, conv1):
    num_queries = attention_masks.shape[1]
    features = features.unsqueeze(1).expand(-1, num_queries, -1, -1, -1).flatten(0, 1)
    attention_masks = attention_masks.flatten(0, 1)
    return conv1(torch.cat([features, attention_masks], dim=1))


def group_stats(x):
    b, c, h, w = x.shape
    x = x.contiguous().view(b, 2, c // 2 * h * w)
    mean = x.mean(dim=2).view(b, 2, 1, 1, 1).expand(b, 2, c // 2, 1, 1).contiguous().view(b, c, 1, 1)
    return mean


def beam_tile(input_ids, batch_size, num_beams):
    return input_ids.unsqueeze(1).expand(batch_size, num_beams, -1).contiguous().view(batch_size * num_beams, -1)


def anchor_centres(num_gt, candidate_idx, boxes, anchors_center):
    boxes_idx = torch.arange(num_gt, device=boxes.device, dtype=torch.long)[:, None].expand_as(candidate_idx).contiguous()
    return anchors_center[candidate_idx.view(-1)], boxes[boxes_idx.view(-1)]


def flat_labels(scores, num_classes):
    labels = torch.arange(num_classes, device=scores.device).view(1, -1).expand_as(scores)
    return labels.reshape(-1)


def chunk_indices(indices, total_chunk_size, chunk_sequence_indices):
    indices = indices.unsqueeze(1).expand((indices.shape[0], total_chunk_size, -1)).flatten(0, 1).clone()
    indices[:, -1] = chunk_sequence_indices
    return indices


def cls_mask(attention_mask, bsz, q_len):
    m = attention_mask[:, None, :].expand(bsz, q_len, -1).contiguous()
    m[:, :, 0] = True
    return m


def ssm_decode_groups(B, batch_size, num_groups, num_heads, state_size, dt):
    # Same number of dims after the reshape, but the group dims are merged (and a unit dim added).
    B = B.reshape(batch_size, num_groups, 1, state_size)
    B = B.expand(batch_size, num_groups, num_heads // num_groups, state_size).contiguous()
    B = B.reshape(batch_size, num_heads, 1, state_size)
    return dt * B


def depthwise_blur(x, k, pad):
    import torch.nn.functional as F

    _B, C, _H, _W = x.shape
    ksize = k.shape[0]
    k_h = k.view(1, 1, 1, ksize).expand(C, 1, 1, ksize).contiguous()
    return F.conv2d(F.pad(x, (pad, pad, 0, 0), mode="reflect"), k_h, groups=C)


class Augment:
    @staticmethod
    def _broadcast_single_mask(mask, image_batch):
        # The copy is needed: each sample's mask is edited in place below.
        return mask.expand(image_batch, *mask.shape[1:]).contiguous()

    def apply(self, mask, image_batch, boxes):
        mask = self._broadcast_single_mask(mask, image_batch)
        mask[:, :, boxes] = 0
        return mask
