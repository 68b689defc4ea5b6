import torch

from pkg.geometry import (
    _spread,
    _spread_as_value,
    _spread_decorated,
    _spread_gate,
    _spread_merged,
    _spread_passed,
    _spread_returned,
    _spread_unread,
    _spread_written,
    _spread_written_inside,
    spread_exported,
    spread_scores,
)
from pkg import geometry


def score(x, h, B, Q, D):
    return h * _spread(x, B, Q, D)


def score_where(w, h, B, Q, D):
    s = spread_scores(w, B, Q, D)
    return torch.where(h > 0, h + s, h - s)


def gated(g, h, B, Q, D):
    return geometry._spread_gate(g, None, B, Q, D) * h


def written(x, h, B, Q, D):
    m = _spread_written(x, B, Q, D)
    out = h * m
    m[:, 0] = 0
    return out + m


def merged(x, h, B, Q, D):
    m = _spread_merged(x, B, Q, D)
    return h * m.view(B, Q * D)


def passed(x, h, B, Q, D):
    # Dropout draws a mask per element of the copy: not a broadcast, and not one to reorder.
    return torch.nn.functional.dropout(_spread_passed(x, B, Q, D), p=0.1) * h


def returned(x, h, B, Q, D):
    return _spread_returned(x, B, Q, D)


def as_value(x, h, B, Q, D):
    spread = _spread_as_value
    return h * _spread_as_value(x, B, Q, D) + h * spread(x, B, Q, D)


def exported(x, h, B, Q, D):
    return h * spread_exported(x, B, Q, D)


def unread(x, B, Q, D):
    _spread_unread(x, B, Q, D)
    return x


def written_inside(x, h, B, Q, D):
    return h * _spread_written_inside(x, B, Q, D)


def decorated(x, h, B, Q, D):
    return h * _spread_decorated(x, B, Q, D)
