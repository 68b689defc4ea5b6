# Helpers that model.py calls only through this module (`utils.select_rows(...)`): the first
# only gathers from `table` (gather checks its input's sizes only: a stride-0 view does as well
# as a copy); the second returns what it is given (the copy is needed).
import torch


def select_rows(table, ids):
    index = ids.unsqueeze(-1).expand(-1, -1, table.size(-1))
    return torch.gather(table, dim=1, index=index)


def passthrough(table, ids):
    return table
