"""A package whose `__init__` re-exports one helper: that one may have callers outside."""

from .geometry import spread_exported

__all__ = ["spread_exported"]
