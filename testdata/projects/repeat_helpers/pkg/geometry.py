"""Helpers that return a `repeat` of a size-1 dim. Each is reported only when every call of it in
the project reads the result by broadcasting alone, and its name is used nowhere else."""

import torch


def _spread(x, B, Q, D):
    return x.view(B, Q, 1).repeat(1, 1, D)  # expect: OOM121


def spread_scores(w, B, Q, D):
    r = w.view(B, Q, 1).repeat(1, 1, D)  # expect: OOM121
    return r


def _spread_gate(g, bias, B, Q, D):
    gate = g.unsqueeze(-1).repeat(1, 1, D)  # expect: OOM121
    if bias is None:
        return gate
    return gate + bias


# Traps: one caller needs the copy, the helper is a value, it is exported, or never called.


def _spread_written(x, B, Q, D):
    return x.view(B, Q, 1).repeat(1, 1, D)


def _spread_merged(x, B, Q, D):
    return x.view(B, Q, 1).repeat(1, 1, D)


def _spread_passed(x, B, Q, D):
    return x.view(B, Q, 1).repeat(1, 1, D)


def _spread_returned(x, B, Q, D):
    return x.view(B, Q, 1).repeat(1, 1, D)


def _spread_as_value(x, B, Q, D):
    return x.view(B, Q, 1).repeat(1, 1, D)


def spread_exported(x, B, Q, D):
    return x.view(B, Q, 1).repeat(1, 1, D)


def _spread_uncalled(x, B, Q, D):
    return x.view(B, Q, 1).repeat(1, 1, D)


def _spread_written_inside(x, B, Q, D):
    r = x.view(B, Q, 1).repeat(1, 1, D)
    r[:, 0] = 0
    return r


@torch.no_grad()
def _spread_decorated(x, B, Q, D):
    return x.view(B, Q, 1).repeat(1, 1, D)


def _spread_unread(x, B, Q, D):
    return x.view(B, Q, 1).repeat(1, 1, D)
