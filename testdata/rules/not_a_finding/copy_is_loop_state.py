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


# The state reaches the call through a move and a sum with another full-size tensor, inside a
# `with` block of a nested loop (a hierarchical recurrence: `z_L` replaced by a full-size module
# output every cycle): the first cycle makes a tensor of that size anyway.
def hierarchical(self, inputs_embeds, h_cycles, l_cycles, mask):
    z_high = inputs_embeds
    z_low = (
        self.z_init.to(dtype=z_high.dtype, device=z_high.device).expand_as(z_high).contiguous()
    )
    for _ in range(h_cycles):
        for step in range(l_cycles):
            with torch.no_grad():
                z_low = self.low_module(z_low.to(z_high.device) + z_high, attention_mask=mask)
        z_high = self.high_module(z_high + z_low.to(z_high.device), attention_mask=mask)
    return z_high


# Rebound from a fresh elementwise result of itself (a residual update, a clamp): every pass
# writes a new tensor of at least its size.
def residual_updates(scores, blocks, bsz, heads, q_len):
    state = scores[:, None, None, :].expand(bsz, heads, q_len, -1).clone()
    for block in blocks:
        state = state + block(state.float())
    return state


def clamped_updates(scores, steps, bsz, heads, q_len):
    state = scores[:, None, None, :].expand(bsz, heads, q_len, -1).contiguous()
    for _ in range(steps):
        state = (state * 0.5).clamp(min=-1.0)
    return state
