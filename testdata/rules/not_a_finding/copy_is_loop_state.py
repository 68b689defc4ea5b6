# A broadcast copied to start a loop's state: the loop rebinds the name from a call that takes it
# (`h = layer(h)`), so its first pass makes a tensor of that full size anyway (hyper-connection
# streams, `[B, S, n, D]`, kept through every layer). Keeping the broadcast view would save only
# the first copy, which the loop replaces at once: not reported. A copy the loop only reads
# (`out = layer(h)`) is still OOM103 (see `testdata/rules/OOM103/positive_loop_reads_copy.py`).
import torch


def streams(inputs_embeds, layers, n_streams, mask):
    hidden_states = inputs_embeds.unsqueeze(2).expand(-1, -1, n_streams, -1).contiguous()
    for layer in layers:
        hidden_states = layer(hidden_states, mask)
    return hidden_states


def streams_with_extra(inputs_embeds, layers, n_streams):
    hidden_states = inputs_embeds.unsqueeze(2).expand(-1, -1, n_streams, -1).contiguous()
    topk = None
    for layer in layers:
        hidden_states, topk = layer(hidden_states=hidden_states, prev_topk=topk)
    return hidden_states


def refine(scores, steps, bsz, heads, q_len, step_fn):
    state = scores[:, None, None, :].expand(bsz, heads, q_len, -1).clone()
    i = 0
    while i < steps:
        state = step_fn(state)
        i += 1
    return state
