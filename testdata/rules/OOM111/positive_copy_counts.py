# A concatenation of copies whose count is not a count of copies per example (guidance branches,
# images per prompt): one copy per step or per layer says nothing about the size, so the copy of
# a tensor of unknown extent is reported. (`torch.cat([latents] * (num_cfg + 1))` is not:
# not_a_finding/tiny_latent_and_grid.py.)
import torch


def steps_of_latents(latents, num_steps, dtype):
    return torch.cat([latents] * (num_steps + 1)).to(dtype)  # expect: OOM111


def layers_of_states(hidden_states, num_layers, dtype):
    return torch.cat([hidden_states] * (num_layers + 1)).to(dtype)  # expect: OOM111
