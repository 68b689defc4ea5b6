# OOM103 negatives: a copy of a broadcast view that is later written in place is needed (writing
# the stride-0 view itself would raise), in every spelling of the write, also when it is merged
# or converted afterwards. Select OOM131 to see these copies.
import torch


class Grid:
    def aug_subscript(self, base, batch_size, num_heads, seq_len):
        grid = base[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).clone()
        grid[:, ..., 1] += seq_len
        return torch.floor(grid).long()

    def aug_attribute_subscript(self, base, batch_size, num_heads, seq_len, k):
        self.grid = base[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).clone()
        self.grid[k] += 1
        return self.grid.flatten(0, 2)

    def through_int_view(self, base, batch_size, num_heads, seq_len):
        grid = base[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).clone()
        first = grid[0]
        first += 1
        return grid.long()

    def copy_into_int_view(self, base, batch_size, num_heads, seq_len, values):
        grid = base[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).clone()
        grid[:, 0].copy_(values)
        return grid.long()

    def fill_method(self, base, batch_size, num_heads, seq_len, keep):
        grid = base[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).clone()
        grid.masked_fill_(keep, 0)
        return grid.long()

    def index_put_method(self, base, batch_size, num_heads, seq_len, idx, values):
        grid = base[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).clone()
        grid.index_put_((idx,), values)
        return grid.long()

    def out_keyword(self, base, batch_size, num_heads, seq_len, values):
        grid = base[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).clone()
        torch.add(values, 1, out=grid)
        return grid.long()

    def through_view_call(self, base, batch_size, num_heads, seq_len):
        grid = base[:, None, None, :].expand(batch_size, num_heads, seq_len, seq_len).clone()
        grid.view(-1)[0] = 1
        return grid.long()
