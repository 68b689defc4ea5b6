# OOM131: `.contiguous()`/`.clone()` of a broadcast view whose copy a later view merges, or which is
# written in place later: the copy is needed as written.
import torch


def in_batch_pairs(emb, batch_size, num_words, hidden):
    emb = (
        emb.unsqueeze(1)
        .expand(batch_size, batch_size, num_words, hidden)
        .contiguous()  # expect: OOM131
        .view(batch_size * batch_size, num_words, hidden)
    )
    return emb


def tile_beams(encoder_hidden, batch_size, num_beams, seq_len, hidden_size):
    expanded = encoder_hidden.unsqueeze(1).expand(batch_size, num_beams, seq_len, hidden_size).contiguous()  # expect: OOM131
    return expanded.view(batch_size * num_beams, seq_len, hidden_size)


def anchor_centres(num_gt, candidate_idx, boxes):
    boxes_idx = torch.arange(num_gt, device=boxes.device)[:, None].expand_as(candidate_idx).contiguous()  # expect: OOM131
    return boxes[boxes_idx.view(-1)]


def flat_filter(logits, num_anchors, num_classes, thr):
    scores = logits[:, 1:]
    labels = torch.arange(num_classes, device=scores.device).view(1, -1).expand(num_anchors, num_classes)
    scores = scores.reshape(-1)
    labels = labels.reshape(-1)  # expect: OOM131
    inds = torch.where(scores > thr)[0]
    return scores[inds], labels[inds]


def mask_with_cls(attention_mask, bsz, q_len):
    m = attention_mask[:, None, :].expand(bsz, q_len, -1).clone()  # expect: OOM131
    m[..., 0] = 1
    return m


# A depthwise kernel grid [C, 1, k, 1] is the conv-weight case of OOM131, but it is a few MiB at
# realistic sizes, so it falls under min-static-bytes and is not reported.
def depthwise_kernel(x, k, pad):
    import torch.nn.functional as F

    C = x.shape[1]
    ksize = k.shape[0]
    k_v = k.view(1, 1, ksize, 1).expand(C, 1, ksize, 1).contiguous()
    return F.conv2d(F.pad(x, (0, 0, pad, pad), mode="reflect"), k_v, groups=C)


def _broadcast_mask(mask, num_heads):
    return mask.expand(num_heads, *mask.shape[1:]).contiguous()  # expect: OOM131


def edit_masks(mask, batch):
    masks = _broadcast_mask(mask, batch)
    masks[0, 0] = 0
    return masks
