# OOM102 device-move-after-expand: `.to(...)` with a device-like or tensor argument, of a value
# made on the host (a factory without `device=`, `torch.from_numpy`, `torch.tensor(list)`).
import numpy as np
import torch


def mask_to_device(lengths, batch_size, num_heads, q_len, src_len, device):
    attention_mask = torch.arange(src_len)[None, :] < torch.tensor(lengths)[:, None]
    mask = attention_mask[:, None, None, :].expand(batch_size, num_heads, q_len, -1)
    return mask.to(device)  # expect: OOM102


def causal_to_cuda_string(seq_len, batch_size):
    causal = torch.ones(seq_len, seq_len).tril().unsqueeze(0).expand(batch_size, -1, -1)
    return causal.to("cuda")  # expect: OOM102


def mask_to_tensor_device(mask_np: np.ndarray, hidden_states, bsz, tgt_len):
    mask = torch.from_numpy(mask_np)[:, None, None, :].expand(bsz, 1, tgt_len, -1)
    return mask.to(hidden_states.device)  # expect: OOM102


def mask_to_device_and_dtype(mask_np, bsz, tgt_len, device, dtype):
    mask = torch.from_numpy(mask_np)
    mask = mask[:, None, None, :].expand(bsz, 1, tgt_len, -1)
    return mask.to(device, dtype)  # expect: OOM102


def mask_to_device_kwarg(bsz, tgt_len, src_len, local_rank):
    mask = torch.ones(bsz, src_len)
    mask = mask[:, None, None, :].expand(bsz, 1, tgt_len, -1)
    return mask.to(device=torch.device("cuda", local_rank))  # expect: OOM102


def mask_like_other_tensor(mask_list, scores, bsz, heads, tgt_len):
    mask = torch.tensor(mask_list)
    mask = mask[:, None, None, :].expand(bsz, heads, tgt_len, -1)
    return mask.to(scores)  # expect: OOM102


def mask_type_as(mask_list, scores, bsz, heads, tgt_len):
    mask = torch.LongTensor(mask_list)
    mask = mask[:, None, None, :].expand(bsz, heads, tgt_len, -1)
    return mask.type_as(scores)  # expect: OOM102


def chunk_mask(x_len, chunk_starts):
    # A helper in this file that builds on the host (no `device=`).
    starts = torch.Tensor(chunk_starts).long()
    seq_range = torch.arange(0, x_len).unsqueeze(-1)
    return seq_range >= starts


class StreamingEncoder:
    def _streaming_mask(self, seq_len, batch_size, chunk_starts):
        return chunk_mask(seq_len, chunk_starts).unsqueeze(0).expand([batch_size, -1, -1])

    def calculate_mask(self, hidden_states, device, chunk_starts):
        mask = self._streaming_mask(hidden_states.shape[1], hidden_states.shape[0], chunk_starts)
        # A real host-to-device move, but both `-1` sizes come from a helper and are unknown:
        # the estimate (8 MiB) is under min-static-bytes, so it is a known miss.
        return mask.to(device)
