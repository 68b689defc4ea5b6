# OOM103: a `.clone()` of a broadcast view that the function does not return (stored on an
# attribute, or used here), or a returned `.contiguous()` (a layout request, not a promise of
# memory of the caller's own). (A returned `.clone()` is needed as written: see
# not_a_finding/returned_clone.py.)
import torch


class Hessian:
    def update(self, p, hess):
        # timm's AdaHessian: every consumer broadcasts the mean.
        self.hess = torch.abs(hess).mean(dim=[2, 3], keepdim=True).expand_as(hess).clone()  # expect: OOM103


def masked_scores(scores, mask, batch_size, num_heads, q_len, k_len):
    m = mask[:, None, None, :].expand(batch_size, num_heads, q_len, k_len).clone()  # expect: OOM103
    return scores.masked_fill(m, 0.0)


def contiguous_mask(mask, batch_size, num_heads, q_len, k_len):
    return mask[:, None, None, :].expand(batch_size, num_heads, q_len, k_len).contiguous()  # expect: OOM103
