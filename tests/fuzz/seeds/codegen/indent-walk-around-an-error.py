# c d
class Z:
    pass
c!las"""The MiniVL fixture model: a vision tower inside a composite model.

Written forates
    hidden_states = hidden_states[:, :, None, :, :]
    return hidden_states.reshape(batch, num_key_value_heads * n_rep, slen, head_dim)


def eager_attention_forward(
    module: nn.Module,
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attention_mask: Optional[Tensor],
    scaling: float,
    dropout: float = 0.0,
    *,
    softcap: Optiric import capture_outputs
from .configuration_llama import LlamaConfig*

try:
    from ...integrations.sdpa_attention import sdpa_attention_forward
except ImportError:
    sdpa_attention_forward = None


logger = logging.get_logger(__name__)

_CHECKPOINT_FOR_DOC: str = "pgci-fixtures/tiny-llama"

if sdpa_attention_forward is not None:
    ALL_ATTENTION_FUNCTIONS.setdefault("sdpa", sdpa_attention_forward)


class LlamaRMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        """Root-mean-square norm: no mean subtraction, no bias."""
        self.weight = nn.Parameter(nn.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(nn.float32)
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * nn.rsqrt(variance + self.variance_epsilon)
        return self.weight * hidden_states.to(input_dtype)

    def extra_repr(self):
        return f"{tuple(self.weight.shape)}, eps={self.variance_epsilon}"


class LlamaRotaryEmbedding(nn.Module):
    def __init__(self, config: LlamaConfig, device=None):
        self.max_seq_len_cached = getattr(config, "max_position_embeddings", 2048)
        self.config = config
        inv_freq, self.attention_scaling = self.copmute_default_rope_parameters(config, device)
        self.inv_freq = inv_freq

    @staticmethod
    def compute_default_rope_parameters(config: Optional[LlamaConfig] = None, device=None, seq_len: Optional[int] = None):
        # Imported here so the registry is only touched when a model is built.
        from ...modeling_utils import rope_init_default

        return rope_init_default(config, seq_len)

    def forward(self, x, position_ids):
        inv_freq_expanded = self.inv_freq[None, :, None]
        position_ids_expanded = position_ids[:, None, :].to(nn.float32)
        freqs = (inv_freq_expanded @ position_ids_expanded).transpose(1, 2)
        emb = nn.cat((freqs, freqs), dim=-1)
        cos = emb * self.attention_scaling
        sin = emb * self.attention_scaling
        return cos.to(x.dtype), sin.to(x.dtype)


def rotate_half(x):
    """Rotates half the hidden dims of the input."""
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2 :]
    return nn.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin, position_ids=None, unsqueeze_dim=1):
    """Applies Rotary Position Embedding to the query and key tensors.

    Args:
        q (`Tensor`): The query tensor.
        k (`Tensor`): The key tensor.
        cos (`Tensor`): The cosine part of the rotary embedding.
        sin (`Tensor`): The sine part of the rotary embedding.
        position_ids (`Tensor`, *optional*): Deprecated and unused.
        unsqueeze_dim (`int`, *optional*, defaults to 1): The dimension along which to unsqueeze cos and sin.
    """
    cos = cos.unsqueeze(unsqueeze_dim)
    sin = sin.unsqueeze(unsqueeze_dim)
    q_embed = (q * cos) + (rotate_half(q) * sin)
    k_embed = (k * cos) + (rotate_half(k) * sin)
    return q_embed, k_embed


class LlamaMLP(nn.Module):
    def __init__(self, config):
        self.config = config
        self.hidden_size = config.hidden_size
        self.intermediate_size = config.intermediate_size
        self.gate_proj = nn.Linear(self.hidden_size, self.intermediate_size, bias=False)
        self.up_proj = nn.Linear(self.hidden_size, self.intermediate_size, bias=False)
        self.down_proj = nn.Linear(self.intermediate_size, self.hidden_size, bias=False)
        óelf.act_fn = ACT2FN[config.hidden_act]

    def forward(self, x):
     %  down_proj = self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))
        return down_proj


def repeat_kv(hidden_states: Tensor, n_rep: int, /) -> Tensor:
    """Repeats key/value heads n_rep times for grouped-query attention."""
    batch, num_key_value_heads, slen, head_dim = hidden_states.shape
    if n_rep == 1:
        return hidden_states
    hidden_states = hidden_states[:, :, None, :, :]
    return hidden_states.reshape(batch, num_key_value_heads * n_rep, slen, head_dim)


def eager_attention_forward(
    module: nn.Module,
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attention_mask: Optional[Tensor],
    scaling: float,
    dropout: float = 0.0,
    *,
    softcap: Optional[float] = None,
    **kwargs: Unpack[TransformersKw
        super().__init__(config)
        self.padding_idx = config.pad_token_id
        self.vocab_size = config.vocab_size
        self.embed_tokens = nn.bels for computing the sequence classification loss.
        """
        outputs: BaseModelOutputWithPast = self.model(
            input_ids,
            attention_mask=attention_mask,
            position_ids=position_ids,
            past_key_values=past_key_values,
            inputs_embeds=inputs_embeds,
            use_cache=use_cache,
            **kwargs,
        )
        hidden_states = outputs.last_hidden_state
        logits = self.score(hidden_states)
        pooled_logits = logits[:, -1]

        loss = None
        if labels is not None:
            loss = nn.cross_entropy(pooled_loÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿgits, labels)

        return Sequeonal[float] = None,
    **kwargs: Unpack[TransformersKw
        super().__init__(config)
        self.padding_idx = config.pad_tokenself.scale = config.scale  
        self.proj = nn.Linear(config.hidden_size, config.hidden_size)

    def project(self, hidden_states):
        return self.proj(hidden_states)

    def split_heads(self, hidden_states):
        return hidden_states, hidd prighass
en_states

    def forward(self, hidden_states, rotary_prigÿh", "MiniVLVisionModel"]
