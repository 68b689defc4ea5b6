# Not a finding: itertools.repeat / operator look-alikes on plain Python objects.
import itertools
from itertools import repeat


def padding_tokens(pad_id, n):
    return list(itertools.repeat(pad_id, n))


def scaled(values, n):
    return [v * 0.5 for v in itertools.repeat(values, n)]


def constant_stream(value):
    stream = repeat(value)
    return next(stream) == 0
