# One example's tensor broadcast to another tensor's whole shape (`expand(input_shape)`,
# `expand(x.size())`, `expand_as(x)`) and then copied or cast. The source's only size-1 dim is its
# leading one and every other dim has a known size, so the broadcast can grow that leading dim
# alone: the batch (the first size of another tensor's shape). A few copies of one example of
# unknown extent, as in `tiny_per_example_copy.py`: not reported at the default
# `min-static-bytes`. A source with a size-1 dim elsewhere (`mask.unsqueeze(-1).expand_as(h)`)
# grows a feature dim and stays reported (see OOM101's `expand_as` positives).
import torch


def position_ids_from_embeds(inputs_embeds, padding_idx, cache_length):
    input_shape = inputs_embeds.size()[:-1]
    sequence_length = input_shape[1]
    position_ids = torch.arange(
        padding_idx + 1, sequence_length + padding_idx + 1, dtype=torch.long, device=inputs_embeds.device
    )
    return position_ids.unsqueeze(0).expand(input_shape).contiguous() + cache_length


def positions_like_ids(input_ids, seq_len):
    positions = torch.arange(seq_len, dtype=torch.long)
    return positions.unsqueeze(0).expand_as(input_ids).float()

