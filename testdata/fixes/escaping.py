import torch


def returned_in_dict(mask, b, s):
    return {"mask": mask[:, None, :].expand(b, s, -1).bool()}


def returned_in_tuple(cos, sin, batch_size, seq_len, head_dim):
    return cos[None].expand(batch_size, seq_len, head_dim).half(), sin[None].expand(batch_size, seq_len, head_dim).half()


class Block:
    def cache(self, mask, b, s):
        self.mask = mask[:, None, :].expand(b, s, -1).bool()

    def buffers(self, causal, b, s):
        self.register_buffer("causal", causal[None].expand(b, s, s).bool(), persistent=False)
        setattr(self, "other", causal[None].expand(b, s, s).bool())


def yielded(masks, b, s):
    for mask in masks:
        yield mask[:, None, :].expand(b, s, -1).bool()


def appended(masks, b, s):
    out = []
    for mask in masks:
        out.append(mask[:, None, :].expand(b, s, -1).bool())
    return out


def repeated_and_returned(x, n):
    return [x.repeat(n, 1).half()]


def local_only(scores, mask, b, s):
    m = mask[:, None, :].expand(b, s, -1).bool()
    return scores.masked_fill(m, 0.0)
