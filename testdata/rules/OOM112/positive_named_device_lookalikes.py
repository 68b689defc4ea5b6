# OOM112: the look-alikes of negative_named_device.py. A move to another device expression, a
# device name bound anew between the two moves, a list that also holds a tensor of unknown
# place, and an object that was never moved: the move may copy, still reported.
import torch


class Ranker:
    def other_device(self, table, i, k, device):
        table = table.to(self.device)
        return table[i].repeat(k, 1, 1).to(device)  # expect: OOM112

    def mixed_list(self, loader, extra, i, k):
        masks = []
        for batch in loader:
            enc = self.tokenizer(batch, return_tensors="pt").to(self.device)
            masks.append(enc.attention_mask)
        masks.append(extra)
        masks = torch.cat(masks, dim=0)
        return masks[i].repeat(k, 1, 1).to(self.device)  # expect: OOM112

    def never_moved(self, loader, i, k):
        masks = []
        for batch in loader:
            enc = self.tokenizer(batch, return_tensors="pt")
            masks.append(enc.attention_mask)
        masks = torch.cat(masks, dim=0)
        return masks[i].repeat(k, 1, 1).to(self.device)  # expect: OOM112


def device_rebound(n, d, k, device, devices):
    table = torch.zeros(n, d, device=device)
    device = devices[1]
    return table.repeat(k, 1, 1).to(device)  # expect: OOM112
