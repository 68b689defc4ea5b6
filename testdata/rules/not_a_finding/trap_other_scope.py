# Look-alike traps: the same name is enlarged in another function / class; the casts here see a parameter.
import torch


def build(attention_mask, bsz, q_len):
    mask = attention_mask[:, None, :].expand(bsz, q_len, -1)
    return mask.sum()


def use(mask):
    return mask.float()


class Block(torch.nn.Module):
    def prepare(self, attention_mask, bsz, q_len):
        self.mask = attention_mask[:, None, :].expand(bsz, q_len, -1)
        return self.mask.any()

    def release(self):
        self.mask = None

    def forward(self, x):
        # self.mask is also set to None in another method: it is not known to be enlarged here.
        return x + self.mask.half()

    def helper(self, mask):
        squash = lambda m: m.bool()
        return squash(mask)
