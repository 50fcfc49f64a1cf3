"""Model specification: the shapes that decide every byte and flop of inference.

`ModelSpec` is a frozen, validated dataclass. :func:`infersim.loaders.hf_model.model_from_hf_config`
reads a HuggingFace `config.json` into one (see :mod:`infersim.loaders.hf_config` for the families it
knows and what it warns about) without any network access.

Parameter counts follow the standard decoder-only layout:

    per layer   attention  h·(n_q + 2·n_kv)·d  +  n_q·d·h      (+ biases where the model has them)
                FFN        m·h·f  with m = 3 for gated (SwiGLU) FFNs, 2 otherwise
                norms      2·h (RMSNorm) or 4·h (LayerNorm with bias)
    once        embedding  V·h (+ P·h learned positions), LM head V·h unless tied, final norm

Attention variants (per layer, ``layer_types``): ``full`` layers cache and attend to the whole
context, ``sliding`` layers the last ``sliding_window`` tokens, ``chunked`` layers (Llama 4's
local attention) at most ``attention_chunk_size`` tokens. :meth:`ModelSpec.kv_layer_tokens` is the
one implementation of "tokens cached per layer type" that memory and attention costs use.
"""
from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from infersim.errors import check_name, choice, positive, require, short_repr
from infersim.specs.limits import LIMITS

#: Bytes per value of each data type, block scales included:
#: ``int4``  AWQ/GPTQ weight-only, groups of 128 with a 16-bit scale and 16-bit zero point
#:           (0.5 + 4/128);
#: ``mxfp4`` OCP microscaling fp4 (gpt-oss experts), 32-value blocks with an 8-bit e8m0 scale
#:           (0.5 + 1/32);
#: ``fp4``   NVFP4, 16-value blocks with an fp8 e4m3 scale (0.5 + 1/16; the per-tensor fp32
#:           scale is negligible). fp8 block scales (one fp32 per 128x128) add 0.02 % and are
#:           left out.
DTYPE_BYTES: dict[str, float] = {
    "fp32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0,
    "int4": 0.5 + 4 / 128, "mxfp4": 0.5 + 1 / 32, "fp4": 0.5 + 1 / 16,
}
ACT_DTYPES = ("fp32", "bf16", "fp16", "fp8", "int8", "fp4")
WEIGHT_DTYPES = tuple(DTYPE_BYTES)
KV_DTYPES = ("fp32", "bf16", "fp16", "fp8", "int8", "int4")
#: Collectives reduce in 16-bit even when activations are fp8 (TensorRT-LLM, vLLM and SGLang
#: all-reduce in bf16/fp16; NCCL has no fp8 reduction), so the collective dtype is its own field.
COMM_DTYPES = ("fp32", "bf16", "fp16", "fp8")
#: Attention layer kinds (``ModelSpec.layer_types``).
LAYER_TYPES = ("full", "sliding", "chunked")

_REQUIRED = ("n_layers", "hidden", "n_heads", "n_kv_heads", "head_dim", "vocab", "max_position",
             "moe_layer_step")

def gemm_dtype(weight: str, act: str) -> str:
    """The data type a GEMM runs in: that of its wider operand (fp8 × fp8 on fp8 tensor cores,
    bf16 activations × int4/fp8/mxfp4 weights dequantise to bf16, int4 × int8 runs int8, NVFP4
    weights × fp4 activations run on fp4 tensor cores)."""
    w, a = DTYPE_BYTES[weight], DTYPE_BYTES[act]
    return act if a >= w else weight


@dataclass(frozen=True)
class ModelSpec:
    """A decoder-only transformer.

    Dense models use ``ffn_hidden``; MoE models set ``n_experts`` > 0 with ``n_experts_per_tok``
    routed experts of width ``moe_ffn_hidden`` each and ``n_shared_experts`` always-on experts.
    Layer i is MoE iff i >= ``first_k_dense`` and (i - first_k_dense) % ``moe_layer_step`` ==
    moe_layer_step - 1 (HF's ``interleave_moe_layer_step`` / ``decoder_sparse_step``: Llama 4
    Maverick's step 2 makes layers 1, 3, 5, ... MoE); the other layers keep a dense FFN of width
    ``ffn_hidden``.
    MLA (DeepSeek) attention sets ``kv_lora_rank`` > 0: the KV cache stores the compressed latent
    (``kv_lora_rank`` + ``qk_rope_head_dim`` values per token per layer) instead of K and V.

    ``layer_types`` gives each layer's attention kind (see :data:`LAYER_TYPES`; empty = all full),
    ``sliding_window`` / ``attention_chunk_size`` the tokens a sliding / chunked layer sees and
    ``attn_sinks`` records gpt-oss's learned attention sinks (one logit per head: no cost).

    ``weight_dtype`` is the dtype of every weight except the routed experts, which are in
    ``expert_weight_dtype`` ("" = the same as ``weight_dtype``): gpt-oss ships MXFP4 experts with
    bf16 attention, NVFP4 checkpoints often keep attention in bf16.
    """

    name: str
    n_layers: int
    hidden: int
    n_heads: int
    n_kv_heads: int
    head_dim: int
    ffn_hidden: int
    vocab: int
    gated_ffn: bool = True
    tied_embeddings: bool = False
    qkv_bias: bool = False
    dense_bias: bool = False          # GPT-style biases on O, FFN and LayerNorm
    norm: str = "rmsnorm"             # "rmsnorm" | "layernorm"
    learned_positions: int = 0        # GPT-style learned position embeddings (rows)
    max_position: int = 131072
    weight_dtype: str = "bf16"
    act_dtype: str = "bf16"
    kv_dtype: str = "bf16"
    comm_dtype: str = "bf16"
    # MoE
    n_experts: int = 0
    n_experts_per_tok: int = 0
    n_shared_experts: int = 0
    moe_ffn_hidden: int = 0
    first_k_dense: int = 0
    # MLA
    kv_lora_rank: int = 0
    q_lora_rank: int = 0
    qk_rope_head_dim: int = 0
    qk_nope_head_dim: int = 0
    v_head_dim: int = 0
    # attention variants
    layer_types: tuple[str, ...] = ()
    sliding_window: int = 0
    attention_chunk_size: int = 0
    attn_sinks: bool = False
    # MoE placement and expert weights
    moe_layer_step: int = 1
    expert_weight_dtype: str = ""
    #: the attention projections' dtype ("" = ``weight_dtype``): Meta's Llama 3.1 405B FP8 quantises
    #: the FFN only (row-wise fp8, FBGEMM) and keeps attention in bf16 (its ``modules_to_not_convert``)
    attn_weight_dtype: str = ""
    #: the embedding's and the LM head's dtype ("" = 16-bit where ``weight_dtype`` is narrower):
    #: quantised checkpoints keep them unquantised (ModelOpt FP8/NVFP4 and compressed-tensors list
    #: ``lm_head`` among their exclusions, AutoAWQ, AutoGPTQ, bitsandbytes and vLLM's dynamic fp8
    #: skip it), which for Llama 3.1 8B in fp8 is 2.1 of its 9.1 GB; gpt-fast's and torchao's
    #: weight-only quantisers convert every ``nn.Linear``, the LM head included (set the weight dtype)
    head_weight_dtype: str = ""
    #: Prompt (context) attention computes in fp8: the serving stack quantises Q, K, V to fp8 and
    #: runs an fp8 flash attention (TensorRT-LLM's ``use_fp8_context_fmha``). Set from the
    #: runtime (:meth:`infersim.specs.runtime.Runtime.model_for`), only with an fp8 KV cache.
    fp8_context_attention: bool = False

    def __post_init__(self) -> None:
        check_name("model", self.name)
        self._check_numbers()
        self._check_flags_and_dtypes()
        self._check_moe()
        self._check_attention()

    def _check_numbers(self) -> None:
        for f, hi in LIMITS.items():
            value = getattr(self, f)
            require(isinstance(value, (int, np.integer)) and not isinstance(value, bool),
                    lambda: f"{f} must be an integer, got {short_repr(value)}")
            lo = 1 if f in _REQUIRED else 0
            require(lo <= value <= hi,
                    lambda: f"{f} must be {'> 0' if lo else '>= 0'} and <= {hi:,}, got {short_repr(value)}")
        require(self.n_heads % self.n_kv_heads == 0,
                f"n_heads ({self.n_heads}) must be a multiple of n_kv_heads ({self.n_kv_heads})")
        if self.kv_lora_rank:
            positive("qk_rope_head_dim", self.qk_rope_head_dim)
            positive("qk_nope_head_dim", self.qk_nope_head_dim)
            positive("v_head_dim", self.v_head_dim)

    def _check_flags_and_dtypes(self) -> None:
        for f in ("gated_ffn", "tied_embeddings", "qkv_bias", "dense_bias", "attn_sinks", "fp8_context_attention"):
            require(isinstance(getattr(self, f), bool),
                    lambda: f"{f} must be true or false, got {short_repr(getattr(self, f))}")
        choice("norm", self.norm, ("rmsnorm", "layernorm"))
        choice("weight dtype", self.weight_dtype, WEIGHT_DTYPES)
        choice("activation dtype", self.act_dtype, ACT_DTYPES)
        choice("KV-cache dtype", self.kv_dtype, KV_DTYPES)
        choice("collective dtype", self.comm_dtype, COMM_DTYPES)
        choice("expert weight dtype", self.expert_weight_dtype, ("",) + WEIGHT_DTYPES)
        choice("attention weight dtype", self.attn_weight_dtype, ("",) + WEIGHT_DTYPES)
        choice("embedding and LM head dtype", self.head_weight_dtype, ("",) + WEIGHT_DTYPES)

    def _check_moe(self) -> None:
        if self.n_experts:
            require(0 < self.n_experts_per_tok <= self.n_experts,
                    f"n_experts_per_tok must be in 1..{self.n_experts}, got {self.n_experts_per_tok}")
            positive("moe_ffn_hidden", self.moe_ffn_hidden)
            require(self.first_k_dense < self.n_layers, "first_k_dense must be < n_layers")
            require(self.n_moe_layers >= 1,
                    f"no MoE layer: n_layers - first_k_dense ({self.n_layers - self.first_k_dense}) "
                    f"must be >= moe_layer_step ({self.moe_layer_step})")
            require(self.n_dense_layers == 0 or self.ffn_hidden > 0,
                    "dense layers of an MoE model (first_k_dense or moe_layer_step > 1) need ffn_hidden > 0")
        else:
            positive("ffn_hidden", self.ffn_hidden)
            require(self.n_experts_per_tok == 0 and self.n_shared_experts == 0,
                    "n_experts_per_tok / n_shared_experts need n_experts > 0")
            require(self.moe_layer_step == 1 and not self.expert_weight_dtype,
                    "moe_layer_step / expert_weight_dtype need n_experts > 0")

    def _check_attention(self) -> None:
        types = self.layer_types
        require(isinstance(types, (tuple, list)), f"layer_types must be a list, got {type(types).__name__}")
        if isinstance(types, list):           # JSON round trips (the UI) give lists
            object.__setattr__(self, "layer_types", tuple(types))
        if types:
            require(len(types) == self.n_layers,
                    f"layer_types has {len(types)} entries; it needs one per layer ({self.n_layers})")
            bad = sorted({str(t) for t in types} - set(LAYER_TYPES))
            require(not bad, f"unknown layer_types {bad}; valid choices: {', '.join(LAYER_TYPES)}")
        counts = self.layer_type_counts()
        for kind, size in (("sliding", "sliding_window"), ("chunked", "attention_chunk_size")):
            if counts[kind]:
                require(getattr(self, size) > 0, f"'{kind}' layers need {size} > 0")
            else:
                require(getattr(self, size) == 0, f"{size} needs '{kind}' entries in layer_types")

    # ----- derived shapes -------------------------------------------------------------------
    @property
    def is_moe(self) -> bool:
        return self.n_experts > 0

    @property
    def is_mla(self) -> bool:
        return self.kv_lora_rank > 0

    @property
    def n_ffn_mats(self) -> int:
        """Weight matrices per FFN: up, gate, down for SwiGLU; up, down otherwise."""
        return 3 if self.gated_ffn else 2

    def layer_is_moe(self, i: int) -> bool:
        """Whether layer ``i`` (0-based) has an MoE FFN (the rule in the class docstring)."""
        k, step = self.first_k_dense, self.moe_layer_step
        return self.is_moe and i >= k and (i - k) % step == step - 1

    @property
    def moe_layer_mask(self) -> tuple[bool, ...]:
        """Per layer: MoE (True) or dense FFN (False)."""
        return tuple(self.layer_is_moe(i) for i in range(self.n_layers))

    @property
    def n_moe_layers(self) -> int:
        """Layers with an MoE FFN: floor((n_layers - first_k_dense) / moe_layer_step)."""
        return (self.n_layers - self.first_k_dense) // self.moe_layer_step if self.is_moe else 0

    @property
    def n_dense_layers(self) -> int:
        return self.n_layers - self.n_moe_layers

    @property
    def q_dim(self) -> int:
        """Width of the query projection output (all heads)."""
        if self.is_mla:
            return self.n_heads * (self.qk_nope_head_dim + self.qk_rope_head_dim)
        return self.n_heads * self.head_dim

    @property
    def attn_out_dim(self) -> int:
        """Width of the attention output fed to the O projection."""
        return self.n_heads * (self.v_head_dim if self.is_mla else self.head_dim)

    @property
    def kv_cache_heads(self) -> int:
        """Independent KV streams in the cache: n_kv_heads, or 1 for MLA's shared latent."""
        return 1 if self.is_mla else self.n_kv_heads

    @property
    def kv_values_per_token_layer(self) -> int:
        """Values cached per token per layer: K and V of every KV head, or MLA's latent + rope key."""
        if self.is_mla:
            return self.kv_lora_rank + self.qk_rope_head_dim
        return 2 * self.n_kv_heads * self.head_dim

    @property
    def kv_bytes_per_token(self) -> float:
        """KV-cache bytes per token over all layers as if every layer were full attention (the
        per-token growth of a full-attention cache). Windowed layers: :meth:`kv_cache_bytes`."""
        return self.n_layers * self.kv_values_per_token_layer * DTYPE_BYTES[self.kv_dtype]

    # ----- attention variants ----------------------------------------------------------------
    def layer_type_counts(self) -> dict[str, int]:
        """Layers of each attention kind: {"full": n, "sliding": n, "chunked": n}."""
        if not self.layer_types:
            return {"full": self.n_layers, "sliding": 0, "chunked": 0}
        return {t: sum(1 for x in self.layer_types if x == t) for t in LAYER_TYPES}

    def attention_span(self, layer_type: str, context):
        """Tokens a layer of ``layer_type`` caches (and at most attends to) at ``context`` tokens:
        full → context, sliding → min(context, sliding_window), chunked → min(context,
        attention_chunk_size) (the cache a chunked layer must hold; the average query of a long
        sequence attends to half a chunk). ``context`` may be a scalar or a numpy array."""
        choice("layer type", layer_type, LAYER_TYPES)
        window = {"full": 0, "sliding": self.sliding_window, "chunked": self.attention_chunk_size}[layer_type]
        return np.minimum(context, window) if window else context

    def kv_layer_tokens(self, context):
        """Σ over layers of the tokens each caches at ``context``: the one formula every KV-size
        and attention cost builds on (n_full·c + n_sliding·min(c, W) + n_chunked·min(c, C))."""
        return sum(n * self.attention_span(t, context) for t, n in self.layer_type_counts().items() if n)

    def attention_pairs(self, prefix, new_tokens):
        """Σ over layers of the (query, key) pairs per head of ``new_tokens`` queries that follow
        ``prefix`` cached tokens. Prefill (causal): query j (1-based position) sees j keys in a
        full layer, min(j, W) in a sliding layer, ((j − 1) mod C) + 1 in a chunked layer; the
        sums have closed forms F(prefix + T) − F(prefix). Decode (T = 1) counts the cached
        keys, the new token's own key ignored as in :attr:`Workload.attn_pairs`: P, min(P, W),
        and for a chunked layer past its first chunk the mean over a chunk, C/2."""
        if new_tokens == 1:
            return sum(n * self._decode_keys(t, prefix) for t, n in self.layer_type_counts().items() if n)
        return sum(n * (self._causal_keys(t, prefix + new_tokens) - self._causal_keys(t, prefix))
                   for t, n in self.layer_type_counts().items() if n)

    def _decode_keys(self, layer_type: str, prefix: float) -> float:
        if layer_type == "chunked" and prefix > self.attention_chunk_size:
            return self.attention_chunk_size / 2.0
        return float(self.attention_span(layer_type, prefix))

    def _causal_keys(self, layer_type: str, n: float) -> float:
        """Σ_{j=1..n} of the keys query j sees in a layer of ``layer_type``."""
        if layer_type == "sliding" and n > self.sliding_window:
            w = float(self.sliding_window)
            return w * (w + 1) / 2.0 + (n - w) * w
        if layer_type == "chunked":
            c = float(self.attention_chunk_size)
            full, r = divmod(n, c)
            return full * c * (c + 1) / 2.0 + r * (r + 1) / 2.0
        return n * (n + 1) / 2.0

    def kv_cache_bytes(self, context):
        """KV-cache bytes of one sequence at ``context`` tokens, windowed layers capped."""
        return self.kv_layer_tokens(context) * self.kv_values_per_token_layer * DTYPE_BYTES[self.kv_dtype]

    def kv_bytes_per_token_at(self, context):
        """Average KV-cache bytes per token of a sequence of ``context`` tokens."""
        return self.kv_cache_bytes(context) / context

    # ----- parameter counts ----------------------------------------------------------------
    def attn_params_per_layer(self) -> int:
        h = self.hidden
        if self.is_mla:
            rope, nope, v = self.qk_rope_head_dim, self.qk_nope_head_dim, self.v_head_dim
            if self.q_lora_rank:
                q = h * self.q_lora_rank + self.q_lora_rank + self.q_lora_rank * self.q_dim
            else:
                q = h * self.q_dim
            kv_a = h * (self.kv_lora_rank + rope) + self.kv_lora_rank   # + latent norm
            kv_b = self.kv_lora_rank * self.n_heads * (nope + v)
            return q + kv_a + kv_b + self.attn_out_dim * h
        qkv = h * (self.q_dim + 2 * self.n_kv_heads * self.head_dim)
        if self.qkv_bias:
            qkv += self.q_dim + 2 * self.n_kv_heads * self.head_dim
        o = self.attn_out_dim * h + (h if self.dense_bias else 0)
        return qkv + o

    def dense_ffn_params(self, width: int | None = None) -> int:
        f = self.ffn_hidden if width is None else width
        p = self.n_ffn_mats * self.hidden * f
        if self.dense_bias:
            p += f * (self.n_ffn_mats - 1) + self.hidden
        return p

    def norm_params_per_layer(self) -> int:
        return (2 if self.norm == "rmsnorm" else 4) * self.hidden

    def moe_layer_ffn_params(self) -> tuple[int, int]:
        """(total, active per token) FFN parameters of one MoE layer, router included."""
        expert = self.dense_ffn_params(self.moe_ffn_hidden)
        router = self.hidden * self.n_experts
        shared = self.n_shared_experts * expert
        total = self.n_experts * expert + shared + router
        active = self.n_experts_per_tok * expert + shared + router
        return total, active

    def routed_expert_params(self) -> int:
        """Parameters of all routed experts (the weights in ``expert_weight_dtype``)."""
        return self.n_moe_layers * self.n_experts * self.dense_ffn_params(self.moe_ffn_hidden)

    def embedding_params(self) -> int:
        return self.vocab * self.hidden + self.learned_positions * self.hidden

    def lm_head_params(self) -> int:
        return 0 if self.tied_embeddings else self.vocab * self.hidden

    def final_norm_params(self) -> int:
        return self.hidden if self.norm == "rmsnorm" else 2 * self.hidden

    def param_count(self) -> int:
        """Total parameters: every weight once (a tied embedding counted once), MTP modules and
        vision towers excluded (they are not part of the decoder)."""
        per_layer_common = self.attn_params_per_layer() + self.norm_params_per_layer()
        total = self.n_layers * per_layer_common
        total += self.n_dense_layers * self.dense_ffn_params()
        if self.is_moe:
            total += self.n_moe_layers * self.moe_layer_ffn_params()[0]
        return total + self.embedding_params() + self.lm_head_params() + self.final_norm_params()

    def active_param_count(self) -> int:
        """Parameters touched per token (MoE: only routed top-k and shared experts), embedding
        and LM head included (Mixtral's and DeepSeek's convention; gpt-oss leaves the input
        embedding out: subtract :meth:`embedding_params`)."""
        if not self.is_moe:
            return self.param_count()
        total, active = self.moe_layer_ffn_params()
        return self.param_count() - self.n_moe_layers * (total - active)

    # ----- data types and bytes --------------------------------------------------------------
    @property
    def expert_dtype(self) -> str:
        """The dtype of the routed-expert weights (``expert_weight_dtype`` or ``weight_dtype``)."""
        return self.expert_weight_dtype or self.weight_dtype

    @property
    def head_dtype(self) -> str:
        """The embedding's and LM head's dtype: ``head_weight_dtype``, else ``weight_dtype`` when
        it is 16-bit or wider, else 16-bit (fp16 beside fp16 activations, bf16 otherwise)."""
        if self.head_weight_dtype:
            return self.head_weight_dtype
        if DTYPE_BYTES[self.weight_dtype] >= 2:
            return self.weight_dtype
        return "fp16" if self.act_dtype == "fp16" else "bf16"

    @property
    def attn_proj_dtype(self) -> str:
        """The dtype of the attention projections' weights (``attn_weight_dtype`` or ``weight_dtype``)."""
        return self.attn_weight_dtype or self.weight_dtype

    def weight_bytes(self) -> float:
        """All weights: routed experts in ``expert_dtype``, attention projections in
        ``attn_proj_dtype``, the embedding and LM head in ``head_dtype``, the rest (norms
        included, for simplicity) in ``weight_dtype``."""
        routed, attn = self.routed_expert_params(), self.n_layers * self.attn_params_per_layer()
        head = self.embedding_params() + self.lm_head_params()
        return ((self.param_count() - routed - attn - head) * DTYPE_BYTES[self.weight_dtype]
                + routed * DTYPE_BYTES[self.expert_dtype] + attn * DTYPE_BYTES[self.attn_proj_dtype]
                + head * DTYPE_BYTES[self.head_dtype])

    def bytes_breakdown(self) -> dict[str, float]:
        """Weight bytes per component over the whole model (``moe_experts``: routed experts in
        the expert dtype, shared experts and routers in the weight dtype)."""
        wb = DTYPE_BYTES[self.weight_dtype]
        out = {
            "attention": self.n_layers * self.attn_params_per_layer() * DTYPE_BYTES[self.attn_proj_dtype],
            "ffn": self.n_dense_layers * self.dense_ffn_params() * wb,
            "norms": (self.n_layers * self.norm_params_per_layer() + self.final_norm_params()) * wb,
            "embedding": self.embedding_params() * DTYPE_BYTES[self.head_dtype],
            "lm_head": self.lm_head_params() * DTYPE_BYTES[self.head_dtype],
        }
        if self.is_moe:
            routed = self.routed_expert_params()
            rest = self.n_moe_layers * self.moe_layer_ffn_params()[0] - routed
            out["moe_experts"] = routed * DTYPE_BYTES[self.expert_dtype] + rest * wb
        return out

    def with_dtypes(self, weight: str | None = None, act: str | None = None,
                    kv: str | None = None, comm: str | None = None,
                    expert: str | None = None, attn: str | None = None,
                    head: str | None = None) -> "ModelSpec":
        """Same shapes, other data types. ``weight`` sets every weight, routed experts and
        attention projections included, unless ``expert`` / ``attn`` name theirs as well (the
        embedding and LM head follow :attr:`head_dtype` unless ``head`` names theirs); empty
        strings are rejected."""
        for label, v in (("weight", weight), ("activation", act), ("KV-cache", kv),
                         ("collective", comm), ("expert weight", expert), ("attention weight", attn),
                         ("embedding and LM head", head)):
            require(v is None or (isinstance(v, str) and v.strip() != ""),
                    f"{label} dtype must not be empty; valid choices: {', '.join(WEIGHT_DTYPES)}")
        experts = expert if expert is not None else ("" if weight else self.expert_weight_dtype)
        attn_w = attn if attn is not None else ("" if weight else self.attn_weight_dtype)
        head_w = head if head is not None else ("" if weight else self.head_weight_dtype)
        return replace(self, weight_dtype=weight or self.weight_dtype,
                       act_dtype=act or self.act_dtype, kv_dtype=kv or self.kv_dtype,
                       comm_dtype=comm or self.comm_dtype, expert_weight_dtype=experts,
                       attn_weight_dtype=attn_w, head_weight_dtype=head_w)

    @property
    def gemm_dtype(self) -> str:
        """The data type the projection and dense-FFN GEMMs run in (see :func:`gemm_dtype`)."""
        return gemm_dtype(self.weight_dtype, self.act_dtype)

    @property
    def attn_proj_gemm_dtype(self) -> str:
        """The data type the attention projections' GEMMs run in."""
        return gemm_dtype(self.attn_proj_dtype, self.act_dtype)

    @property
    def head_gemm_dtype(self) -> str:
        """The data type the LM head's GEMM runs in."""
        return gemm_dtype(self.head_dtype, self.act_dtype)

    @property
    def expert_gemm_dtype(self) -> str:
        """The data type the routed-expert GEMMs run in."""
        return gemm_dtype(self.expert_dtype, self.act_dtype)

    @property
    def attn_dtype(self) -> str:
        """The data type of the attention matmuls: 16-bit (FlashAttention-2/3 and TensorRT-LLM's
        default FMHA dequantise an fp8 KV cache; fp8 attention is opt-in), fp32 for fp32
        activations."""
        return "fp32" if self.act_dtype == "fp32" else "bf16"

    def attention_dtype(self, prefill: bool) -> str:
        """The attention matmuls' data type in a prefill (prompt) or decode step: fp8 in prefill
        when :attr:`fp8_context_attention` is set and the KV cache is fp8, else
        :attr:`attn_dtype`."""
        if prefill and self.fp8_context_attention and self.kv_dtype == "fp8" and self.act_dtype != "fp32":
            return "fp8"
        return self.attn_dtype

    # ----- context -------------------------------------------------------------------------
    def check_context(self, context: int) -> None:
        """Warn (not fail) when ``context`` exceeds the trained length ``max_position``."""
        if context > self.max_position:
            from infersim.errors import warn

            warn(f"s_kv {context:,} exceeds {self.name}'s max_position_embeddings "
                 f"({self.max_position:,}); simulated anyway")

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


__all__ = ["ModelSpec", "DTYPE_BYTES", "LAYER_TYPES", "LIMITS"]
