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


# The loop rebinds the name, but not at the copy's full size or not on every pass: the copy is
# still the largest tensor that lives through the loop.
def takes_a_slice(inputs_embeds, layers, bsz, heads, q_len):
    h = inputs_embeds[:, None, None, :].expand(bsz, heads, q_len, -1).contiguous()  # expect: OOM103
    for layer in layers:
        h = layer(h[:, :, -1:])
    return h


def projected(inputs_embeds, layers, w, bsz, heads, q_len):
    h = inputs_embeds[:, None, None, :].expand(bsz, heads, q_len, -1).contiguous()  # expect: OOM103
    for layer in layers:
        h = layer(h @ w)
    return h


def only_moved(inputs_embeds, devices, bsz, heads, q_len):
    h = inputs_embeds[:, None, None, :].expand(bsz, heads, q_len, -1).contiguous()  # expect: OOM103
    for device in devices:
        h = h.to(device)
    return h


def on_some_passes(inputs_embeds, layers, bsz, heads, q_len, x):
    h = inputs_embeds[:, None, None, :].expand(bsz, heads, q_len, -1).contiguous()  # expect: OOM103
    for i, layer in enumerate(layers):
        if i % 2:
            h = layer(h.to(x.device) + x)
    return h
