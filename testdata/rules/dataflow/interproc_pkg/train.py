# A training entry point written at module level: the code is walked like a function body, and
# calls of helpers (in this file and in other files of the tree) continue their chains.
import torch

from .helpers import make_mask
from .helpers_containers import mask_and_positions, mask_outputs, masks_as_list


def local_mask(attention_mask, num_heads, tgt_len):
    bsz, src_len = attention_mask.shape
    return attention_mask[:, None, None, :].expand(bsz, num_heads, tgt_len, src_len)


attention_mask = torch.load("mask.pt")
num_heads, tgt_len = 32, attention_mask.shape[-1]

attn = make_mask(attention_mask, num_heads, tgt_len)
attn = attn.bool()  # expect: OOM101

local = local_mask(attention_mask, num_heads, tgt_len)
local = local.half()  # expect: OOM101

mask, positions = mask_and_positions(attention_mask, None, num_heads, tgt_len)
mask = mask.float()  # expect: OOM101
positions = positions.float()

first, second = masks_as_list(attention_mask, num_heads, tgt_len)
first = first.float()
second = second.to(torch.float16)  # expect: OOM101

outputs = mask_outputs(attention_mask, num_heads, tgt_len)
scores = outputs["mask"].float()  # expect: OOM101
lengths = outputs["lengths"].float()
direct = mask_outputs(attention_mask, num_heads, tgt_len)["mask"].bool()  # expect: OOM101
element = masks_as_list(attention_mask, num_heads, tgt_len)[1].half()  # expect: OOM101

if __name__ == "__main__":
    guarded = local_mask(attention_mask, num_heads, tgt_len).to(torch.bfloat16)  # expect: OOM101
