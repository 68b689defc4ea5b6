# OOM121 negatives: the gathered tensor is tiled over dims that are not known to be size 1 (a real
# tile; `positive_gather_input.py` has the size-1 case), or the index is also used where a real
# copy is needed.
import torch


def gathered_source(x, ids, D):
    src = x.repeat(1, 1, D)
    return torch.gather(src, 1, ids)


def index_written_later(x, ids_keep, D):
    index = ids_keep.unsqueeze(-1).repeat(1, 1, D)
    index[:, 0] = 0
    return torch.gather(x, 1, index)


def index_returned(x, ids_keep, D):
    index = ids_keep.unsqueeze(-1).repeat(1, 1, D)
    return torch.gather(x, 1, index), index


def top_boxes(boxes, topk_boxes):
    # Four coordinates of a few selected boxes: a small index.
    return torch.gather(boxes, 1, topk_boxes.unsqueeze(-1).repeat(1, 1, 4))


def top_queries(memory, topk_ind):
    # A top-k selection sized by another tensor's last dim.
    return memory.gather(dim=1, index=topk_ind.unsqueeze(-1).repeat(1, 1, memory.shape[-1]))


class QuerySelection:
    def select(self, memory, scores, k):
        # A top-k selection repeated by one size held in a name: a few rows of hidden size.
        topk_ind = torch.topk(scores.max(-1)[0], k, dim=1)[1]
        return torch.gather(memory, 1, topk_ind.unsqueeze(-1).repeat(1, 1, self.d_model))
