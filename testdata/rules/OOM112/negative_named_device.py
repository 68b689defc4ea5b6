# OOM112 negatives: the repeated value was placed with the same device expression it is moved
# to (`.to(self.device)`, `device=device`), so the move returns the tensor itself. The placement
# is kept through an attribute of a moved batch, a list of such values and its `torch.cat`,
# indexing, `repeat`, a `*_like` factory and a `.device` read.
import torch


class Ranker:
    def batch_attribute_in_list(self, texts, loader, i, k):
        masks = []
        for batch in loader:
            enc = self.tokenizer(batch, return_tensors="pt").to(self.device)
            masks.append(enc.attention_mask)
        masks = torch.cat(masks, dim=0)
        return masks[i].repeat(k, 1).to(self.device)

    def indexed_after_move(self, table, i, k):
        table = table.to(self.device)
        return table[i].repeat(k, 1, 1).to(self.device)

    def like_and_device_read(self, table, k):
        table = table.to(self.device)
        zeros = torch.zeros_like(table)
        return zeros.repeat(k, 1, 1).to(table.device)


def made_with_device(n, d, k, device):
    table = torch.zeros(n, d, device=device)
    return table.repeat(k, 1, 1).to(device)
