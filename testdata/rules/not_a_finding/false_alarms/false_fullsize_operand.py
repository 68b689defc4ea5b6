# Review repro (unseen code), class: an operand that already has the full shape. `c` is
# `expand_as(eps)`, so `c * eps` is full-size whichever operand is expanded: nothing to reorder.
import torch


def predict_x0(coef, t, eps):
    c = coef[t].view(-1, 1, 1).expand_as(eps)
    return c * eps
