# OOM104: the look-alikes of not_a_finding/false_alarms/own_fullsize_operand.py. The operand is
# a number, or a name that is not the tensor the expand took its size from.
import torch


def scaled_by_number(coef, t, hidden_states):
    c = coef[t].view(-1, 1, 1).expand_as(hidden_states)
    return c * 0.5  # expect: OOM104


def scaled_by_other(coef, t, hidden_states, scale):
    c = coef[t].view(-1, 1, 1).expand_as(hidden_states)
    return c * scale  # expect: OOM104
