# Not a finding: numpy arrays, not tensors (look-alike method names and scalar ops).
import numpy as np
import numpy


def tiled_ids(ids, n):
    return np.tile(ids, (n, 1)) * 2


def repeated_positions(seq_len, n):
    pos = np.arange(seq_len).repeat(n)
    return pos < 5


def broadcast_table(table, shape):
    b = np.broadcast_to(table, shape)
    return -b


def repeated_float(x, n):
    return numpy.repeat(x, n, axis=0) == 0
