# OOM121: a repeat of size-1 dims used only as the tensor index of a tensor. Indexing reads the
# mask (or integer index) through its strides, so the expanded view selects the same elements, for
# a read and for a write (torchmetrics' ignore-index mask, kornia's LoFTR dustbin filter; proved
# with torch in scripts/prove_recall.py).
import torch


def ignore_index(preds, target, num_classes, ignore_index):
    preds = preds.clone()
    idx = target == ignore_index
    idx = idx.unsqueeze(1).repeat(1, num_classes, 1)  # expect: OOM121
    preds[idx] = num_classes
    return preds


def dustbin(scores, filter0, seq_len):
    conf_matrix = torch.softmax(scores, dim=-1)
    conf_matrix[filter0[:, :, None].repeat(1, 1, seq_len)] = 0  # expect: OOM121
    return conf_matrix


def selected(scores, keep, seq_len):
    return scores[keep[:, None, :].repeat(1, seq_len, 1)]  # expect: OOM121
