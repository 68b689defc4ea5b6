import torch


# A helper returns a repeat; one caller needs the copy, or the helper escapes as a value.


def _key_bias_written(key_bias, num_heads):
    return key_bias[:, None, :, :].repeat(1, num_heads, 1, 1)


def add_key_bias_masked(scores, key_bias, num_heads, pad):
    bias = _key_bias_written(key_bias, num_heads)
    bias.masked_fill_(pad, 0.0)
    return scores + bias


def add_key_bias_plain(scores, key_bias, num_heads):
    return scores + _key_bias_written(key_bias, num_heads)


def _key_bias_flattened(key_bias, num_heads):
    return key_bias[:, None, :, :].repeat(1, num_heads, 1, 1)


def add_key_bias_flat(scores, key_bias, num_heads):
    bias = _key_bias_flattened(key_bias, num_heads)
    return scores + bias.flatten(1, 2)


def _key_bias_handed_on(key_bias, num_heads):
    return key_bias[:, None, :, :].repeat(1, num_heads, 1, 1)


def add_key_bias_through(scores, key_bias, num_heads, layer):
    return scores + layer(_key_bias_handed_on(key_bias, num_heads))


def _key_bias_as_value(key_bias, num_heads):
    return key_bias[:, None, :, :].repeat(1, num_heads, 1, 1)


BIAS_BUILDERS = {"per_head": _key_bias_as_value}


def add_key_bias_by_value(scores, key_bias, num_heads):
    return scores + _key_bias_as_value(key_bias, num_heads)


def _key_bias_returned_on(key_bias, num_heads):
    return key_bias[:, None, :, :].repeat(1, num_heads, 1, 1)


def key_bias_again(key_bias, num_heads):
    return _key_bias_returned_on(key_bias, num_heads)


def _key_bias_never_called(key_bias, num_heads):
    return key_bias[:, None, :, :].repeat(1, num_heads, 1, 1)


class Biased:
    def _per_head(self, key_bias, num_heads):
        return key_bias[:, None, :, :].repeat(1, num_heads, 1, 1)

    def forward(self, scores, key_bias, num_heads):
        return scores + self._per_head(key_bias, num_heads)


def _key_bias_stored(key_bias, num_heads):
    return key_bias[:, None, :, :].repeat(1, num_heads, 1, 1)


class Stored:
    def setup(self, key_bias, num_heads):
        self.bias = _key_bias_stored(key_bias, num_heads)

    def forward(self, scores):
        return scores + self.bias

    def zero_padding(self, pad):
        self.bias.masked_fill_(pad, 0.0)


def _key_bias_captured(key_bias, num_heads):
    return key_bias[:, None, :, :].repeat(1, num_heads, 1, 1)


def add_key_bias_captured(scores, key_bias, num_heads, pad):
    bias = _key_bias_captured(key_bias, num_heads)

    def zero_padding():
        bias.masked_fill_(pad, 0.0)

    zero_padding()
    return scores + bias
