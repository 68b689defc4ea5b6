# OOM102 negatives: what is moved is genuinely full size (the enlargement ended before the move).
import torch


def scores_to_cpu(scores, mask, b, h, q):
    scores = scores + mask[:, None, None, :].expand(b, h, q, -1)
    return scores.cpu()


def reduced_then_moved(mask, b, q, device):
    counts = mask[:, None, :].expand(b, q, -1).sum(dim=-1)
    return counts.to(device)


def gathered_then_moved(mask, index, b, q):
    m = mask[:, None, :].expand(b, q, -1)
    return torch.gather(m, 1, index).cuda()
