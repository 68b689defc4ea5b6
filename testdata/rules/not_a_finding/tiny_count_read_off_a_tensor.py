# A per-item copy grown by a count that the code reads off a tensor's leading size
# (`num_labels = unique_labels.shape[0]`, `num_boxes = len(boxes)`, `count = x.size(0)`): when the
# name does not say it is a length, heads, a feature or a spatial size (here "labels", which alone
# would read as a class vocabulary), the count is a tensor's leading extent, as `x.shape[0]`
# itself would be, and the copied row's extent is not known. A few copies of one example's row:
# not reported at the default `min-static-bytes`.
import torch


def label_maps(label_groups):
    label_maps = ()
    for label_group in label_groups:
        unique_labels = torch.unique(label_group)[1:, None]
        num_labels = unique_labels.shape[0]
        label_map = label_group.unsqueeze(0).repeat(num_labels, 1)
        label_map = torch.where(label_map == unique_labels, 1, 0)
        label_maps += (label_map,)
    return label_maps


def per_box_rows(row, boxes):
    num_boxes = len(boxes)
    rows = row.unsqueeze(0).repeat(num_boxes, 1)
    return rows.float()


def per_query_rows(row, queries):
    count = queries.size(0)
    return row.unsqueeze(0).repeat(count, 1).half()
