# The configuration class of the model beside it: its keyword defaults size the model's dims.
class TubeletConfig:
    def __init__(self, hidden_size=1024, tubelet_size=2, **kwargs):
        self.hidden_size = hidden_size
        self.tubelet_size = tubelet_size
