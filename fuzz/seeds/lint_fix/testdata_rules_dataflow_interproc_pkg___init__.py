# Interprocedural across files: helpers.make_mask returns an expanded view; model.py casts it.
from .model import Model

__all__ = ["Model"]
