def fwd(self, hidden_states, cu_seqlens, rotary_pos_emb=None, **kwargs):
    return hidden_states


class VisionAttention:
    def forward(self, hidden_states, cu_seqlens, rotary_pos_emb=None, **kwargs):
        return hidden_states
#--
class VisionAttention:
    @deprecate_kwarg("rotary_pos_emb", version="v5.10")
    def forward(self, hidden_states, cu_seqlens, position_embeddings=None, **kwargs):
        return hidden_states
