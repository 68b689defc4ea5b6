# OOM104: the look-alikes of not_a_finding/false_alarms/own_fullsize_operand.py. The operand is
# a number, or a name that is not the tensor the expand took its size from.
import torch


def scaled_by_number(coef, t, hidden_states):
    c = coef[t].view(-1, 1, 1).expand_as(hidden_states)
    return c * 0.5  # expect: OOM104


def scaled_by_other(coef, t, hidden_states, scale):
    c = coef[t].view(-1, 1, 1).expand_as(hidden_states)
    return c * scale  # expect: OOM104


def asserted_other_shape(coef, t, x_t, eps, scale):
    # The assert ties `eps` to `x_t`, but the operand is `scale`: still a number-like name.
    assert x_t.shape == eps.shape
    c = coef[t].view(-1, 1).expand(x_t.shape)
    return c * scale  # expect: OOM104


def scaled_by_zero_dim(coef, t, hidden_states):
    # A reduction over every dim is 0-d: it broadcasts like a number.
    c = coef[t].view(-1, 1, 1).expand_as(hidden_states)
    return c * hidden_states.std()  # expect: OOM104
