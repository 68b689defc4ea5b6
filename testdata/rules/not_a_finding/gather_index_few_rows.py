# Not a finding: gather indexes whose repeat is not a broadcast of size-1 dims, or that pick a few
# small rows (box coordinates, one last dim read off the gathered tensor after a top-k), or that
# are also read otherwise.
import torch


def top_boxes(logits, boxes):
    # A top-k selection (through `index // num_classes`) of a few boxes, repeated over their
    # coordinates by a size read off the boxes.
    num_classes = logits.shape[2]
    scores, index = torch.topk(logits.sigmoid().flatten(1), 300, dim=-1)
    index = index // num_classes
    return boxes.gather(dim=1, index=index.unsqueeze(-1).repeat(1, 1, boxes.shape[-1]))


def top_queries(memory, scores, k):
    topk = scores.max(-1).values.topk(k, dim=1).indices
    return memory.gather(1, topk.unsqueeze(-1).repeat(1, 1, memory.shape[-1]).to(memory.device))



def corner_grid(points, index):
    # Literal counts: a 2x2 neighbourhood per row.
    return points.gather(1, index.unsqueeze(-1).unsqueeze(-1).repeat(1, 1, 2, 2))


def shifted_unit_dims(maps, ids):
    # `ids` is [B, L]: unsqueeze(-2) then unsqueeze(-1) gives [B, 1, L, 1], whose dim 2 is L, not 1.
    return maps.gather(1, ids.unsqueeze(-2).unsqueeze(-1).repeat(1, 1, maps.shape[-2], maps.shape[-1]))
