class Block:
    def __init__(self, config):
        self.attn = Attention(config)
        self.eps = config.eps

    def forward(self, h, cu_seqlens, rotary_pos_emb=None):
        return h + self.attn(h, cu_seqlens=cu_seqlens, rotary_pos_emb=rotary_pos_emb) * self.eps
#--
@auto_docstring
class Block:
    def __init__(self, config):
        self.attn = Attention(config)
        self.variance_epsilon = config.eps

    @auto_docstring
    def forward(self, h, cu_seqlens, max_seqlen=None):
        r"""
        cu_seqlens (`torch.Tensor`):
            Cumulative lengths.
        """
        return h + self.attn(h, cu_seqlens=cu_seqlens, max_seqlen=max_seqlen) * self.variance_epsilon
