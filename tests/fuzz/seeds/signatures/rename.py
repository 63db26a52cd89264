def fwd(self, x, past_key_values=None, cache_position=None):
    r"""
    cache_position (`torch.LongTensor`): where.
    """
    return x


class LM:
    @auto_docstring
    def forward(self, x, past_key_values=None, cache_position=None, **kwargs):
        # don't pass "past_key_values" twice
        out = self.model(
            x,
            past_key_values=past_key_values,
            cache_position=cache_position,
            **kwargs,
        )
        return out.past_key_values
#--
class LM:
    @deprecate_kwarg("past_key_values", "9.0", new_name="cache")
    @auto_docstring
    def forward(self, x, cache=None, **kwargs):
        # don't pass "cache" twice
        out = self.model(
            x,
            cache=cache,
            **kwargs,
        )
        return out.past_key_values
