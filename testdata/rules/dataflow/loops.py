# Dataflow: loops (analysed to a fixpoint).
import torch


def cast_inside_loop(layers, hidden, attention_mask, bsz, heads, q_len):
    mask = attention_mask[:, None, None, :].expand(bsz, heads, q_len, -1)
    for layer in layers:
        hidden = layer(hidden, mask.float())  # expect: OOM101
    return hidden


def expanded_on_a_later_iteration(base, steps, bsz, q_len):
    m = base
    outs = []
    for _ in range(steps):
        outs.append(m.half())  # expect: OOM101
        m = base[:, None, :].expand(bsz, q_len, -1)
    return outs


def while_loop(attention_mask, bsz, q_len, device):
    i = 0
    while i < 3:
        mask = torch.from_numpy(attention_mask)[:, None, :].expand(bsz, q_len, -1)
        i += 1
    return mask.to(device)  # expect: OOM102
