"""tinyformer: a small joint text/image transformer used as oomlint's end-to-end example."""
from .attention import TinyformerAttention
from .modeling import TinyformerBlock, TinyformerModel

__all__ = ["TinyformerAttention", "TinyformerBlock", "TinyformerModel"]
