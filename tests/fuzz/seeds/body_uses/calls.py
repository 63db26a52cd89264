def forward(self, x, flag, **kwargs):
    fn = make_mask if flag else make_window_mask
    kw = {"config": self.config, 'cache_position': x}
    other = {"a": 1}
    other["b"] = 2
    m = fn(x, **kw) + make_mask(**other)
    q, k = self.split(x, mode="a")
    for i, layer in enumerate(self.layers[: self.n]):
        x = layer(x, mask=m[layer.attention_type], **kwargs)
    for block in self.blocks:
        x = block.norm(x) + block.scale
    return self.rotary(len(x)), q, k


def position_fn(self):
    fake = SimpleNamespace(config=self.config, scale=2)
    other = types.SimpleNamespace(config=None)
    Model.rope_index(other, [1])
    return partial(helper, Model.rope_index, fake)
