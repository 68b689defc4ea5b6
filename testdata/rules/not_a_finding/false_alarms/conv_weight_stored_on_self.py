# A grouped-conv weight made dense once in `__init__` (a full-size copy of a broadcast window) and
# read in another method as the weight of the convolution: the copy is the weight the kernel
# reads (OOM131 claims it), also through `torch.Tensor(t)` (an alias of `t`) and through a
# `.to(device)` that may hand back the same tensor.
import torch
import torch.nn.functional as F


class SSim(torch.nn.Module):
    def __init__(self, win2d, channels, window_size):
        super().__init__()
        self.channels = channels
        self.window = torch.Tensor(
            win2d.expand(channels, 1, window_size, window_size).contiguous()
        )

    def ssim(self, tensor1):
        window = self.window.to(tensor1.device)
        return F.conv2d(tensor1, window, padding=5, groups=self.channels)


class Blur(torch.nn.Module):
    def __init__(self, kernel, channels, k):
        super().__init__()
        self.kernel = kernel.view(1, 1, k, k).expand(channels, 1, k, k).contiguous()

    def forward(self, x):
        return F.conv2d(x, self.kernel, groups=x.shape[1])
