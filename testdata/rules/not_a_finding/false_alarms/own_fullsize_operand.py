# Not a finding: the other operand already has the full enlarged shape. The expand took its size
# from that very tensor (`expand_as(x)`, `expand(x.shape)`, `expand(*x.size())`), so the op writes
# a full-size result whichever operand is expanded. The look-alikes that fire (a number as the
# other operand) are in OOM104/positive_fullsize_lookalikes.py.
import torch


def scaled_noise(coef, t, noise):
    c = coef[t].view(-1, 1, 1, 1).expand_as(noise)
    return c * noise


def shifted(shift, hidden_states):
    s = shift[:, None, :].expand(hidden_states.shape)
    return hidden_states + s


def gated(gate, hidden_states):
    g = gate[:, None, :].expand(*hidden_states.size())
    return g.mul(hidden_states)


def predicted_start(coef, t, x_t, eps):
    # An `assert x_t.shape == eps.shape` gives `eps` the shape the expand took from `x_t`: `eps`
    # is an array of the full shape, not a number (recbole's DiffRec, tortoise's diffusion).
    assert x_t.shape == eps.shape
    c = coef[t].view(-1, 1).expand(x_t.shape)
    return c * eps


def predicted_start_sizes(coef, t, x_t, eps):
    assert x_t.size() == eps.size() and t.dim() == 1
    c = coef[t].view(-1, 1).expand(x_t.size())
    return c * eps
