# Not a finding: "enlargers" that keep the tensor's shape, however the sizes are spelled. A repeat
# with all-one counts, an expand to the tensor's own shape, and expand_as(y) of a value that already
# has y's shape copy or view nothing larger.
import torch

NUM_REPEATS = 1


def gaussian_weight(kernel, device):
    kernel = kernel.view(1, 1, *kernel.size())
    kernel = kernel.repeat(1, *[1] * (kernel.dim() - 1))
    return kernel.to(device)


def repeat_tuple_of_ones(x, k, dtype):
    return x.repeat((1,) * k).to(dtype)


def repeat_module_constant(x, dtype):
    return x.repeat(NUM_REPEATS, 1).to(dtype)


def expand_own_unpacked_shape(x):
    bsz, length = x.shape
    return x.expand(bsz, length).float()


def expand_own_size_call(x):
    return x.expand(x.size(0), -1).half()


def expand_own_shape_index(lengths, dtype):
    return lengths.expand(lengths.shape[0], -1).to(dtype)


def ones_like_expand_as(y):
    return torch.ones_like(y).expand_as(y).bool()


def elementwise_of_y_expand_as(y):
    return (y > 0).expand_as(y).float()


def cast_of_y_expand_as(y):
    return y.float().expand_as(y).contiguous()
