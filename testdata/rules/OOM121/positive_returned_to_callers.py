import torch


# The repeat is returned; every call of the helper in the project only broadcasts the result.
def _key_bias_per_head(key_bias, num_heads):
    # key_bias: [batch, q_len, k_len] -> [batch, heads, q_len, k_len]
    return key_bias[:, None, :, :].repeat(1, num_heads, 1, 1)  # expect: OOM121


def add_key_bias(scores, key_bias, num_heads):
    return scores + _key_bias_per_head(key_bias, num_heads)


def add_and_subtract_key_bias(scores, key_bias, num_heads):
    bias = _key_bias_per_head(key_bias, num_heads)
    return scores + bias, scores - bias
