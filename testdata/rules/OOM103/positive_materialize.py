# OOM103 materialize-after-expand: contiguous / clone write out the broadcast view.
import torch


def contiguous_mask(attention_mask, bsz, heads, q_len):
    mask = attention_mask[:, None, None, :].expand(bsz, heads, q_len, -1)
    return mask.contiguous()  # expect: OOM103


def cloned_embeddings(token_embeds, batch_size, seq_len, encoder):
    # (A clone the function returns is its callers' own memory: see not_a_finding/returned_clone.py.)
    embeds = token_embeds.expand(batch_size, seq_len, -1).clone()  # expect: OOM103
    return encoder(embeds)


def torch_clone_bias(alibi, scores, batch_size, q_len):
    bias = alibi[None, :, None, :].expand(batch_size, -1, q_len, -1)
    bias = torch.clone(bias)  # expect: OOM103
    return scores + bias


def contiguous_after_transpose(mask, b, h, q):
    m = mask[:, None, None, :].expand(b, h, q, -1).transpose(2, 3)
    return m.contiguous()  # expect: OOM103
