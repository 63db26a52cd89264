def fwd(self, x, past_key_values=None):
    return x


class Layer:
    def forward(self, x, past_key_values=None):
        return x


class Model:
    def __init__(self, config):
        self.layers = nn.ModuleList([Layer(config, i) for i in range(2)])

    def forward(self, x, past_key_values=None):
        for i, layer in enumerate(self.layers[:2]):
            x = layer(x, past_key_values=past_key_values)
        return x
#--
class Layer:
    @deprecate_kwarg("past_key_values", "9.0", new_name="cache")
    def forward(self, x, cache=None):
        return x


class Model:
    def __init__(self, config):
        self.layers = nn.ModuleList([Layer(config, i) for i in range(2)])

    def forward(self, x, cache=None):
        for i, layer in enumerate(self.layers[:2]):
            x = layer(
                x, cache=cache
            )
        return x
