# Look-alikes of a count read off a tensor's leading size that are large: the count is a
# parameter, is read off a later dim (`x.shape[1]`), or is named for a length (`seq_len =
# x.shape[0]` of a sequence-first tensor), so nothing says it is a few copies per item.
import torch


def label_map_per_class(label_group, num_labels):
    label_map = label_group.unsqueeze(0).repeat(num_labels, 1)
    return label_map == 3  # expect: OOM113


def rows_per_token(row, tokens):
    n = tokens.shape[1]
    rows = row.unsqueeze(0).repeat(n, 1)
    return 1.0 - rows  # expect: OOM113


def modulation_per_position(x, shift):
    seq_len = x.shape[0]
    shifts = shift.unsqueeze(0).repeat(seq_len, 1, 1)
    return shifts * 2.0  # expect: OOM113
