# OOM121 negatives next to positive_index_reader.py: the copy is what is indexed (its values are
# read), the index sits in a tuple with other indices, the indexed value is a list, or a store
# goes into a value not known to be a tensor (a dict may be keyed by anything).
import torch


def copy_is_indexed(keep, mask, num_heads):
    rep = keep[:, None, :].repeat(1, num_heads, 1)
    return rep[mask]


def copy_is_written(keep, mask, num_heads):
    rep = keep[:, None, :].repeat(1, num_heads, 1)
    rep[mask] = False
    return rep


def index_in_tuple(scores, keep, num_heads):
    return scores[keep[:, None, :].repeat(1, num_heads, 1), 0]


def list_indexed(items, keep, num_heads):
    rows = [items]
    return rows[keep[:, None, :].repeat(1, num_heads, 1)]


def stored_in_unknown(table, keep, seq_len):
    table[keep[:, None, :].repeat(1, seq_len, 1)] = 0
    return table
