"""Model specification: the shapes that decide every byte and flop of inference.

`ModelSpec` is a frozen, validated dataclass. `ModelSpec.from_hf_config` reads a HuggingFace
`config.json` (Llama, Mistral, Qwen2, GPT-2/GPT-3 style, Mixtral/Qwen-MoE and DeepSeek style keys)
without any network access.

Parameter counts follow the standard decoder-only layout:

    per layer   attention  h·(n_q + 2·n_kv)·d  +  n_q·d·h      (+ biases where the model has them)
                FFN        m·h·f  with m = 3 for gated (SwiGLU) FFNs, 2 otherwise
                norms      2·h (RMSNorm) or 4·h (LayerNorm with bias)
    once        embedding  V·h (+ P·h learned positions), LM head V·h unless tied, final norm
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, fields, replace
from typing import Any, Mapping

from .errors import InferSimError, choice, positive, require

#: Bytes per element of each supported data type (int4 is weight-only, two values per byte).
DTYPE_BYTES: dict[str, float] = {
    "fp32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0, "int4": 0.5,
}
ACT_DTYPES = ("fp32", "bf16", "fp16", "fp8", "int8")
WEIGHT_DTYPES = tuple(DTYPE_BYTES)
KV_DTYPES = ("fp32", "bf16", "fp16", "fp8", "int8", "int4")
#: Collectives reduce in 16-bit even when activations are fp8 (TensorRT-LLM, vLLM and SGLang
#: all-reduce in bf16/fp16; NCCL has no fp8 reduction), so the collective dtype is its own field.
COMM_DTYPES = ("fp32", "bf16", "fp16", "fp8")

#: Largest uploaded config.json accepted (real ones are a few KB; DeepSeek-V3's is under 2 KB).
MAX_CONFIG_BYTES = 1 << 20


class _NonFiniteNumber(ValueError):
    """NaN, Infinity or an overflowing literal such as 1e400 in uploaded JSON."""


def _finite_json_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NonFiniteNumber(text)
    return value


def from_hf_config_text(data: bytes | str, name: str | None = None) -> ModelSpec:
    """Build a spec from the *content* of a HuggingFace ``config.json`` (a UI upload).

    Unlike :meth:`ModelSpec.from_hf_config`, the input is never treated as a path: text such as
    ``/etc/passwd`` is parsed as JSON and rejected like any other bad content, so an upload can
    neither read a server file nor learn whether one exists. Content over
    :data:`MAX_CONFIG_BYTES` is refused; every failure is one ``malformed config.json`` line
    that never echoes the content."""
    raw = data.encode("utf-8", errors="replace") if isinstance(data, str) else bytes(data)
    require(len(raw) <= MAX_CONFIG_BYTES,
            f"config.json too large: {len(raw):,} bytes; the limit is {MAX_CONFIG_BYTES:,}")
    try:
        cfg = json.loads(raw.decode("utf-8-sig"), parse_float=_finite_json_float,
                         parse_constant=_finite_json_float)
    except UnicodeDecodeError:
        raise InferSimError("malformed config.json: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise InferSimError(f"malformed config.json: {exc.msg} at line {exc.lineno}") from None
    except _NonFiniteNumber:
        raise InferSimError("malformed config.json: NaN, Infinity and out-of-range numbers "
                            "are not valid") from None
    except (ValueError, RecursionError):   # over-long integer literal, nesting too deep
        raise InferSimError("malformed config.json: number too long or nesting too deep") from None
    require(isinstance(cfg, dict), "malformed config.json: top level must be a JSON object")
    return ModelSpec.from_hf_config(cfg, name=name)


def gemm_dtype(weight: str, act: str) -> str:
    """The data type a GEMM runs in: that of its wider operand (fp8 × fp8 on fp8 tensor cores,
    bf16 activations × int4/fp8 weights dequantise to bf16, int4 × int8 runs int8)."""
    w, a = DTYPE_BYTES[weight], DTYPE_BYTES[act]
    return act if a >= w else weight


@dataclass(frozen=True)
class ModelSpec:
    """A decoder-only transformer.

    Dense models use ``ffn_hidden``; MoE models set ``n_experts`` > 0 with ``n_experts_per_tok``
    routed experts of width ``moe_ffn_hidden`` each, ``n_shared_experts`` always-on experts and
    ``first_k_dense`` leading layers that keep a dense FFN of width ``ffn_hidden``.
    MLA (DeepSeek) attention sets ``kv_lora_rank`` > 0: the KV cache stores the compressed latent
    (``kv_lora_rank`` + ``qk_rope_head_dim`` values per token per layer) instead of K and V.
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

    def __post_init__(self) -> None:
        require(bool(self.name), "model name must not be empty")
        for f in ("n_layers", "hidden", "n_heads", "n_kv_heads", "head_dim", "vocab"):
            value = getattr(self, f)
            require(isinstance(value, int) and not isinstance(value, bool),
                    f"{f} must be an integer, got {value!r}")
            positive(f, value)
        for f in ("ffn_hidden", "learned_positions", "n_experts", "n_experts_per_tok",
                  "n_shared_experts", "moe_ffn_hidden", "first_k_dense", "kv_lora_rank",
                  "q_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim"):
            positive(f, getattr(self, f), allow_zero=True)
        require(self.n_heads % self.n_kv_heads == 0,
                f"n_heads ({self.n_heads}) must be a multiple of n_kv_heads ({self.n_kv_heads})")
        choice("norm", self.norm, ("rmsnorm", "layernorm"))
        choice("weight dtype", self.weight_dtype, WEIGHT_DTYPES)
        choice("activation dtype", self.act_dtype, ACT_DTYPES)
        choice("KV-cache dtype", self.kv_dtype, KV_DTYPES)
        choice("collective dtype", self.comm_dtype, COMM_DTYPES)
        if self.n_experts:
            require(0 < self.n_experts_per_tok <= self.n_experts,
                    f"n_experts_per_tok must be in 1..{self.n_experts}, got {self.n_experts_per_tok}")
            positive("moe_ffn_hidden", self.moe_ffn_hidden)
            require(self.first_k_dense < self.n_layers, "first_k_dense must be < n_layers")
            require(self.first_k_dense == 0 or self.ffn_hidden > 0,
                    "first_k_dense > 0 needs ffn_hidden for the dense layers")
        else:
            positive("ffn_hidden", self.ffn_hidden)
            require(self.n_experts_per_tok == 0 and self.n_shared_experts == 0,
                    "n_experts_per_tok / n_shared_experts need n_experts > 0")
        if self.kv_lora_rank:
            positive("qk_rope_head_dim", self.qk_rope_head_dim)
            positive("qk_nope_head_dim", self.qk_nope_head_dim)
            positive("v_head_dim", self.v_head_dim)

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

    @property
    def n_moe_layers(self) -> int:
        return self.n_layers - self.first_k_dense if self.is_moe else 0

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
        """KV-cache bytes per token over all layers, in the KV dtype."""
        return self.n_layers * self.kv_values_per_token_layer * DTYPE_BYTES[self.kv_dtype]

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

    def embedding_params(self) -> int:
        return self.vocab * self.hidden + self.learned_positions * self.hidden

    def lm_head_params(self) -> int:
        return 0 if self.tied_embeddings else self.vocab * self.hidden

    def final_norm_params(self) -> int:
        return self.hidden if self.norm == "rmsnorm" else 2 * self.hidden

    def param_count(self) -> int:
        """Total parameters, as published model cards count them."""
        per_layer_common = self.attn_params_per_layer() + self.norm_params_per_layer()
        total = self.n_layers * per_layer_common
        total += self.n_dense_layers * self.dense_ffn_params()
        if self.is_moe:
            total += self.n_moe_layers * self.moe_layer_ffn_params()[0]
        return total + self.embedding_params() + self.lm_head_params() + self.final_norm_params()

    def active_param_count(self) -> int:
        """Parameters touched per token (MoE: only routed top-k and shared experts)."""
        if not self.is_moe:
            return self.param_count()
        total, active = self.moe_layer_ffn_params()
        return self.param_count() - self.n_moe_layers * (total - active)

    def weight_bytes(self) -> float:
        """All weights in the weight dtype (norms and embeddings included, for simplicity)."""
        return self.param_count() * DTYPE_BYTES[self.weight_dtype]

    def bytes_breakdown(self) -> dict[str, float]:
        """Weight bytes per component over the whole model."""
        wb = DTYPE_BYTES[self.weight_dtype]
        out = {
            "attention": self.n_layers * self.attn_params_per_layer() * wb,
            "ffn": self.n_dense_layers * self.dense_ffn_params() * wb,
            "norms": (self.n_layers * self.norm_params_per_layer() + self.final_norm_params()) * wb,
            "embedding": self.embedding_params() * wb,
            "lm_head": self.lm_head_params() * wb,
        }
        if self.is_moe:
            out["moe_experts"] = self.n_moe_layers * self.moe_layer_ffn_params()[0] * wb
        return out

    def with_dtypes(self, weight: str | None = None, act: str | None = None,
                    kv: str | None = None, comm: str | None = None) -> "ModelSpec":
        """Same shapes, other data types."""
        return replace(self, weight_dtype=weight or self.weight_dtype,
                       act_dtype=act or self.act_dtype, kv_dtype=kv or self.kv_dtype,
                       comm_dtype=comm or self.comm_dtype)

    @property
    def gemm_dtype(self) -> str:
        """The data type the projection and FFN GEMMs run in (see :func:`gemm_dtype`)."""
        return gemm_dtype(self.weight_dtype, self.act_dtype)

    @property
    def attn_dtype(self) -> str:
        """The data type of the attention matmuls: 16-bit (FlashAttention-2/3 and TensorRT-LLM's
        default FMHA dequantise an fp8 KV cache; fp8 attention is opt-in), fp32 for fp32
        activations."""
        return "fp32" if self.act_dtype == "fp32" else "bf16"

    # ----- loading --------------------------------------------------------------------------
    @classmethod
    def from_hf_config(cls, source: str | os.PathLike | Mapping[str, Any], name: str | None = None,
                       **overrides) -> "ModelSpec":
        """Build a spec from a HuggingFace ``config.json`` path, JSON text or already-parsed dict."""
        cfg = _load_config(source)
        try:
            kwargs = _hf_to_kwargs(cfg)
        except (KeyError, TypeError) as exc:
            raise InferSimError(f"malformed config.json: missing or invalid field {exc}") from None
        kwargs["name"] = name or cfg.get("_name_or_path") or cfg.get("model_type") or "custom"
        valid = {f.name for f in fields(cls)}
        unknown = set(overrides) - valid
        require(not unknown, f"unknown ModelSpec fields {sorted(unknown)}; valid: {sorted(valid)}")
        kwargs.update(overrides)
        return cls(**kwargs)

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def _load_config(source) -> dict:
    if isinstance(source, Mapping):
        return dict(source)
    text = None
    if isinstance(source, (str, os.PathLike)) and os.path.exists(source):
        with open(source, encoding="utf-8") as fh:
            text = fh.read()
    elif isinstance(source, str) and source.lstrip().startswith(("{", "[")):
        text = source
    elif isinstance(source, (bytes, bytearray)):
        text = source.decode("utf-8", errors="replace")
    if text is None:
        raise InferSimError(f"config.json not found: {source!s}")
    try:
        cfg = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InferSimError(f"malformed config.json: {exc.msg} at line {exc.lineno}") from None
    require(isinstance(cfg, dict), "malformed config.json: top level must be a JSON object")
    return cfg


def _int(cfg: Mapping, *keys, default=None) -> int:
    for k in keys:
        if k in cfg and cfg[k] is not None:
            v = cfg[k]
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v != int(v):
                raise TypeError(f"'{k}'={v!r}")
            return int(v)
    if default is None:
        raise KeyError(keys[0])
    return default


def _dtype_from_torch(cfg: Mapping) -> str:
    td = str(cfg.get("torch_dtype") or cfg.get("dtype") or "bfloat16")
    # fp32 checkpoints are served in 16-bit
    return {"float16": "fp16", "bfloat16": "bf16", "float32": "fp16"}.get(td, "bf16")


def _hf_to_kwargs(cfg: Mapping) -> dict:
    mtype = str(cfg.get("model_type", "llama"))
    if mtype in ("gpt2", "gpt3", "openai-gpt", "gpt_neo", "gptj"):
        rotary = mtype == "gptj"        # GPT-J: rotary positions, untied head, no QKV bias
        hidden = _int(cfg, "n_embd", "hidden_size")
        heads = _int(cfg, "n_head", "num_attention_heads")
        require(hidden % heads == 0, f"hidden ({hidden}) must be divisible by heads ({heads})")
        return dict(
            n_layers=_int(cfg, "n_layer", "num_hidden_layers"), hidden=hidden, n_heads=heads,
            n_kv_heads=heads, head_dim=hidden // heads,
            ffn_hidden=_int(cfg, "n_inner", "intermediate_size", default=4 * hidden),
            vocab=_int(cfg, "vocab_size"), gated_ffn=False,
            tied_embeddings=bool(cfg.get("tie_word_embeddings", not rotary)),
            qkv_bias=not rotary, dense_bias=True, norm="layernorm",
            learned_positions=0 if rotary else _int(cfg, "n_positions", "max_position_embeddings"),
            max_position=_int(cfg, "n_positions", "max_position_embeddings"),
            weight_dtype=_dtype_from_torch(cfg), act_dtype=_dtype_from_torch(cfg),
            kv_dtype=_dtype_from_torch(cfg),
        )
    hidden = _int(cfg, "hidden_size")
    heads = _int(cfg, "num_attention_heads")
    require(heads > 0 and hidden > 0, "hidden_size and num_attention_heads must be > 0")
    head_dim = _int(cfg, "head_dim", default=hidden // heads if hidden % heads == 0 else 0)
    require(head_dim > 0, f"hidden_size ({hidden}) not divisible by heads ({heads}) and no head_dim")
    dtype = _dtype_from_torch(cfg)
    kw = dict(
        n_layers=_int(cfg, "num_hidden_layers"), hidden=hidden, n_heads=heads,
        n_kv_heads=_int(cfg, "num_key_value_heads", default=heads), head_dim=head_dim,
        ffn_hidden=_int(cfg, "intermediate_size", default=0), vocab=_int(cfg, "vocab_size"),
        gated_ffn=str(cfg.get("hidden_act", "silu")) in ("silu", "swiglu", "gelu_pytorch_tanh", "gelu")
        and mtype not in ("phi", "falcon"),
        tied_embeddings=bool(cfg.get("tie_word_embeddings", False)),
        qkv_bias=bool(cfg.get("attention_bias", mtype in ("qwen2", "qwen2_moe"))),
        max_position=_int(cfg, "max_position_embeddings", default=131072),
        weight_dtype=dtype, act_dtype=dtype, kv_dtype=dtype,
    )
    # MoE: Mixtral (num_local_experts), Qwen-MoE / DeepSeek (n_routed_experts / num_experts)
    n_exp = _int(cfg, "num_local_experts", "n_routed_experts", "num_experts", default=0)
    if n_exp:
        kw.update(
            n_experts=n_exp,
            n_experts_per_tok=_int(cfg, "num_experts_per_tok"),
            n_shared_experts=_int(cfg, "n_shared_experts", default=0),
            moe_ffn_hidden=_int(cfg, "moe_intermediate_size", "intermediate_size"),
            first_k_dense=_int(cfg, "first_k_dense_replace", default=0),
        )
        if mtype == "qwen2_moe" and cfg.get("shared_expert_intermediate_size"):
            # Qwen1.5/2-MoE: one shared expert of its own width, modelled as k experts of moe width
            kw["n_shared_experts"] = max(1, round(cfg["shared_expert_intermediate_size"]
                                                  / kw["moe_ffn_hidden"]))
        if "decoder_sparse_step" in cfg and _int(cfg, "decoder_sparse_step", default=1) != 1:
            raise InferSimError("decoder_sparse_step != 1 is not supported")
        if kw["first_k_dense"] == 0:
            kw["ffn_hidden"] = 0
    if cfg.get("kv_lora_rank"):
        kw.update(
            kv_lora_rank=_int(cfg, "kv_lora_rank"), q_lora_rank=_int(cfg, "q_lora_rank", default=0),
            qk_rope_head_dim=_int(cfg, "qk_rope_head_dim"),
            qk_nope_head_dim=_int(cfg, "qk_nope_head_dim"), v_head_dim=_int(cfg, "v_head_dim"),
        )
        # MLA: every head has its own (decompressed) K and V; the cache holds the latent.
        kw["n_kv_heads"] = heads
        kw["head_dim"] = kw["qk_nope_head_dim"] + kw["qk_rope_head_dim"]
    if "deepseek" in mtype and n_exp:
        # DeepSeek-V3 (moe_layer_freq=1): all layers after first_k_dense_replace are MoE.
        require(_int(cfg, "moe_layer_freq", default=1) == 1, "moe_layer_freq != 1 is not supported")
    return kw


__all__ = ["ModelSpec", "DTYPE_BYTES"]
