# Review repro (unseen code), class: `.pin_memory()` is not a device move. Pinning before the
# repeat would not pin the repeat's new allocation: the pinned copy is what the code transfers.
import torch


def token_lora_ids(seq_lens, adapter_ids):
    ids = torch.repeat_interleave(adapter_ids, seq_lens).pin_memory()
    return ids.to("cuda", non_blocking=True)
