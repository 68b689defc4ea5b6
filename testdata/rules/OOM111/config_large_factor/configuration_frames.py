# The configuration class of the model beside it: 64 frames per clip, 8 attention heads.
class FramesConfig:
    def __init__(self, hidden_size=1024, num_frames=64, num_attention_heads=8, **kwargs):
        self.hidden_size = hidden_size
        self.num_frames = num_frames
        self.num_attention_heads = num_attention_heads
