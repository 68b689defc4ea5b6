# Look-alikes of a loop's state that are still OOM103: the loop only reads the copy, or rebinds
# its name from the copy's own method rather than from a call that takes it.
import torch


def read_by_loop(attention_mask, layers, bsz, heads, q_len, hidden_states):
    mask = attention_mask[:, None, None, :].expand(bsz, heads, q_len, -1).contiguous()  # expect: OOM103
    for layer in layers:
        hidden_states = layer(hidden_states, mask)
    return hidden_states


def other_name(inputs_embeds, layers, bsz, heads, q_len):
    streams = inputs_embeds[:, None, None, :].expand(bsz, heads, q_len, -1).contiguous()  # expect: OOM103
    out = streams
    for layer in layers:
        out = layer(streams)
    return out
