"""HuggingFace ``config.json`` → :class:`~infersim.specs.model.ModelSpec` fields.

Stages: read and parse safely (:mod:`infersim.loaders.hf_read`); take the decoder's fields (``text_config``
when present — Llama 4, Gemma 3, Mistral 3, Kimi — with ``torch_dtype``, ``tie_word_embeddings``
and ``quantization_config`` inherited from the top level); fill absent keys with the family's HF
defaults (:mod:`infersim.loaders.hf_families`); map shapes, MoE placement, MLA, per-layer attention kinds
and dtypes (:mod:`infersim.loaders.hf_quant`); warn about what changes the cost and is not modelled.

Keys that change the cost and are not modelled warn (:data:`UNMODELLED`), naming the key. Keys
that do not change the cost are read or ignored silently: RoPE scaling, logit and attention
soft-capping, ``query_pre_attn_scalar``, router scoring and grouping (``topk_method``,
``n_group``, ``routed_scaling_factor``, ``norm_topk_prob``), QK norms, parallel residuals,
partial rotary, dropout, token ids. Negligible weights are not counted: QK-norm and extra
(pre/post) norm vectors, router biases, gpt-oss's sink logits. A ``model_type`` infersim does
not know loads as a Llama-style decoder with a warning that lists the assumptions and the keys
it did not read.
"""
from __future__ import annotations

from typing import Any, Mapping

from infersim.errors import InferSimError, short_repr, warn
from infersim.loaders import hf_read as rd
from infersim.loaders.hf_families import UNGATED_UNKNOWN, Family, family_of
from infersim.loaders.hf_quant import quant_dtypes
from infersim.specs.limits import LIMITS

_INHERITED = ("torch_dtype", "dtype", "tie_word_embeddings", "quantization_config", "_name_or_path")
_TORCH = {"float16": "fp16", "half": "fp16", "bfloat16": "bf16", "float8_e4m3fn": "fp8",
          "float8_e4m3fnuz": "fp8", "float8_e5m2": "fp8", "float8_e5m2fnuz": "fp8", "int8": "int8"}
_LAYER_KINDS = {"full_attention": "full", "sliding_attention": "sliding", "chunked_attention": "chunked",
                "full": "full", "sliding": "sliding", "chunked": "chunked"}

#: Keys whose presence changes inference cost in a way infersim does not model (warned):
#: (key, condition on its value, what is left out).
UNMODELLED: tuple[tuple[str, Any, str], ...] = (
    ("num_nextn_predict_layers", lambda v: isinstance(v, int) and v > 0,
     "multi-token-prediction (MTP) layers are not modelled: their weights and draft passes are left out"),
    ("vision_config", lambda v: bool(v), "the vision encoder and projector are not modelled (text decoder only)"),
    ("audio_config", lambda v: bool(v), "the audio encoder is not modelled (text decoder only)"),
    ("cross_attention_layers", lambda v: bool(v), "cross-attention layers are not modelled"),
    ("is_encoder_decoder", lambda v: v is True, "the encoder of an encoder-decoder model is not modelled"),
    ("index_topk", lambda v: bool(v), "sparse attention with a token indexer is not modelled: attention is costed dense"),
)
#: Generic PretrainedConfig keys: never reported as unread for unknown families.
_GENERIC = {"architectures", "model_type", "transformers_version", "torch_dtype", "dtype", "bos_token_id",
            "eos_token_id", "pad_token_id", "use_cache", "initializer_range", "rms_norm_eps",
            "layer_norm_eps", "layer_norm_epsilon", "rope_theta", "rope_scaling", "attention_dropout",
            "hidden_dropout", "auto_map", "_name_or_path", "tie_word_embeddings", "text_config"}


class _Tracked(dict):
    """A dict that records which keys were read (to list unread keys of unknown families)."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.read: set[str] = set()

    def get(self, key, default=None):
        self.read.add(key)
        return super().get(key, default)

    def __contains__(self, key):
        self.read.add(key)
        return super().__contains__(key)


def _text_view(cfg: dict) -> tuple[_Tracked, Family | None, str]:
    """(decoder fields with family defaults applied, family or None, the model_type reported)."""
    top_type = rd.get_str(cfg, "model_type")
    text = rd.get_dict(cfg, "text_config")
    fields = dict(text) if text is not None else dict(cfg)
    if text is not None:
        for k in _INHERITED:
            if fields.get(k) is None and cfg.get(k) is not None:
                fields[k] = cfg[k]
    mtype = rd.get_str(fields, "model_type") if text is not None else top_type
    fam = family_of(mtype) or family_of(top_type)
    view = _Tracked({**(fam.defaults if fam else {}), **{k: v for k, v in fields.items() if v is not None}})
    # explicit nulls stay null (DeepSeek-V2-Lite's "q_lora_rank": null means no query compression)
    view.update({k: None for k, v in fields.items() if v is None})
    return view, fam, mtype or top_type or "(none)"


def _dims(v: Mapping, fam: Family | None) -> dict:
    gpt = fam is not None and fam.style == "gpt"
    hidden = rd.get_int(v, ("n_embd", "hidden_size") if gpt else "hidden_size", hi=LIMITS["hidden"])
    heads = rd.get_int(v, ("n_head", "num_attention_heads") if gpt else "num_attention_heads",
                       hi=LIMITS["n_heads"])
    multi_query = rd.get_bool(v, "multi_query", False)
    kv = rd.get_int(v, ("num_key_value_heads", "num_kv_heads", "n_head_kv"),
                    default=1 if multi_query else heads, hi=LIMITS["n_kv_heads"])
    head_dim = rd.get_int(v, "head_dim", default=hidden // heads if hidden % heads == 0 else 0,
                          lo=0, hi=LIMITS["head_dim"])
    if head_dim == 0:
        raise InferSimError(f"malformed config.json: hidden_size ({hidden}) is not divisible by "
                            f"num_attention_heads ({heads}) and there is no head_dim")
    layers = rd.get_int(v, ("n_layer", "num_hidden_layers") if gpt else "num_hidden_layers",
                        hi=LIMITS["n_layers"])
    ffn_default = 4 * hidden if gpt else 0
    ffn = rd.get_int(v, ("n_inner", "intermediate_size"), default=ffn_default, lo=0, hi=LIMITS["ffn_hidden"])
    positions = ("n_positions", "max_position_embeddings")
    max_pos = rd.get_int(v, positions if gpt else "max_position_embeddings", default=131072,
                         hi=LIMITS["max_position"])
    return dict(n_layers=layers, hidden=hidden, n_heads=heads, n_kv_heads=kv, head_dim=head_dim,
                ffn_hidden=ffn, vocab=rd.get_int(v, "vocab_size", hi=LIMITS["vocab"]), max_position=max_pos)


def _structure(v: Mapping, fam: Family | None, mtype: str) -> dict:
    if fam is not None:
        gated = fam.gated
    else:
        act = str(v.get("hidden_act", "silu"))
        gated = act in ("silu", "swiglu", "gelu_pytorch_tanh", "gelu") and mtype not in UNGATED_UNKNOWN
    gpt = fam is not None and fam.style == "gpt"
    return dict(gated_ffn=gated, tied_embeddings=rd.get_bool(v, "tie_word_embeddings", False),
                qkv_bias=rd.get_bool(v, "attention_bias", mtype in ("qwen2", "qwen2_moe")),
                dense_bias=bool(fam and fam.dense_bias), norm="layernorm" if gpt else "rmsnorm")


def _layer_indices(v: Mapping, key: str, n_layers: int) -> list[int]:
    """A list of layer indices (``mlp_only_layers``, ``moe_layers``), each checked in range."""
    items = rd.get_list(v, key) or []
    if not all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < n_layers for i in items):
        raise InferSimError(f"malformed config.json: field '{key}' must list layer indices in "
                            f"0..{n_layers - 1}")
    return items


def _moe_placement(v: Mapping, fam: Family | None, n_layers: int) -> tuple[int, int]:
    """(first_k_dense, moe_layer_step) from DeepSeek, Qwen-MoE and Llama 4 keys."""
    first_k = rd.get_int(v, "first_k_dense_replace", default=0, lo=0, hi=n_layers - 1)
    if rd.get_int(v, "moe_layer_freq", default=1) != 1:
        raise InferSimError("moe_layer_freq != 1 is not supported (DeepSeek places MoE layers by "
                            "absolute index; no released model uses it)")
    step = rd.get_int(v, ("interleave_moe_layer_step", "decoder_sparse_step"), default=1, hi=n_layers)
    dense_only = _layer_indices(v, "mlp_only_layers", n_layers)
    explicit = _layer_indices(v, "moe_layers", n_layers)
    if explicit:
        if sorted(explicit) != list(range(step - 1, n_layers, step)):
            warn(f"moe_layers lists {len(explicit)} MoE layers off the regular pattern: modelled as "
                 "the last ones (count exact, placement approximate)")
            first_k, step = n_layers - len(set(explicit)), 1
    if dense_only:
        if step != 1:
            raise InferSimError("mlp_only_layers together with decoder_sparse_step > 1 is not supported")
        if sorted(set(dense_only)) != list(range(len(set(dense_only)))):
            warn(f"mlp_only_layers {sorted(dense_only)[:8]}: dense layers modelled as the first "
                 f"{len(set(dense_only))} (count exact, placement approximate)")
        first_k = max(first_k, len(set(dense_only)))
    return first_k, step


def _moe(v: Mapping, fam: Family | None, dims: dict) -> dict:
    n_exp = rd.get_int(v, ("num_local_experts", "n_routed_experts", "num_experts"), default=0, lo=0,
                       hi=LIMITS["n_experts"])
    if not n_exp:
        return {}
    n_layers = dims["n_layers"]
    moe_ffn = rd.get_int(v, ("moe_intermediate_size", "intermediate_size"), hi=LIMITS["moe_ffn_hidden"])
    kw = dict(n_experts=n_exp, moe_ffn_hidden=moe_ffn,
              n_experts_per_tok=rd.get_int(v, ("num_experts_per_tok", "experts_per_token"),
                                           hi=LIMITS["n_experts"]),
              n_shared_experts=rd.get_int(v, "n_shared_experts", default=fam.shared_experts if fam else 0,
                                          lo=0, hi=LIMITS["n_shared_experts"]))
    shared_width = rd.get_int(v, "shared_expert_intermediate_size", default=0, lo=0)
    if shared_width:
        # Qwen-MoE: one shared expert of its own width, modelled as k experts of the routed width
        kw["n_shared_experts"] = max(1, round(shared_width / moe_ffn))
    first_k, step = _moe_placement(v, fam, n_layers)
    has_dense = n_layers - (n_layers - first_k) // step > 0
    dense_key = fam.dense_ffn_key if fam else "intermediate_size"
    kw.update(first_k_dense=first_k, moe_layer_step=step,
              ffn_hidden=rd.get_int(v, dense_key, lo=0, hi=LIMITS["ffn_hidden"]) if has_dense else 0)
    return kw


def _mla(v: Mapping, heads: int) -> dict:
    if not v.get("kv_lora_rank"):
        return {}
    kw = dict(kv_lora_rank=rd.get_int(v, "kv_lora_rank", hi=LIMITS["kv_lora_rank"]),
              q_lora_rank=rd.get_int(v, "q_lora_rank", default=0, lo=0, hi=LIMITS["q_lora_rank"]),
              qk_rope_head_dim=rd.get_int(v, "qk_rope_head_dim", hi=LIMITS["qk_rope_head_dim"]),
              qk_nope_head_dim=rd.get_int(v, "qk_nope_head_dim", hi=LIMITS["qk_nope_head_dim"]),
              v_head_dim=rd.get_int(v, "v_head_dim", hi=LIMITS["v_head_dim"]))
    # MLA: every head has its own (decompressed) K and V; the cache holds the latent.
    kw.update(n_kv_heads=heads, head_dim=kw["qk_nope_head_dim"] + kw["qk_rope_head_dim"])
    return kw


def _pattern_types(v: Mapping, fam: Family | None, n: int, max_pos: int, window: int) -> list[str]:
    """Per-layer kinds from the family rule when the config has no ``layer_types`` list."""
    rule = fam.layers if fam else "none"
    if rule == "all" and 0 < window < max_pos:
        return ["sliding"] * n
    if rule == "qwen" and window and rd.get_bool(v, "use_sliding_window", False):
        first = rd.get_int(v, "max_window_layers", default=0, lo=0)
        return ["sliding" if i >= first else "full" for i in range(n)]
    if rule == "alternate":           # Gemma 2: layer 0 slides, layer 1 is global, ...
        return ["sliding" if i % 2 == 0 else "full" for i in range(n)]
    if rule == "pattern":             # Gemma 3: 5 local layers, then a global one (pattern 6)
        p = rd.get_int(v, "sliding_window_pattern", hi=LIMITS["n_layers"] + 1)
        return ["sliding" if (i + 1) % p else "full" for i in range(n)]
    if rule == "llama4":              # RoPE layers attend in chunks; NoPE layers (0 here) globally
        rope = rd.get_list(v, "no_rope_layers", length=n)
        if rope and not all(r in (0, 1) and not isinstance(r, float) for r in rope):
            raise InferSimError("malformed config.json: field 'no_rope_layers' must hold 0 or 1 per layer")
        if not rope:
            interval = rd.get_int(v, "no_rope_layer_interval", hi=LIMITS["n_layers"] + 1)
            rope = [int((i + 1) % interval != 0) for i in range(n)]
        return ["chunked" if r else "full" for r in rope]
    return ["full"] * n


def _attention(v: Mapping, fam: Family | None, n: int, max_pos: int) -> dict:
    window = rd.get_int(v, "sliding_window", default=0, lo=0, hi=LIMITS["sliding_window"])
    chunk = rd.get_int(v, "attention_chunk_size", default=0, lo=0, hi=LIMITS["attention_chunk_size"])
    listed = rd.get_list(v, "layer_types", length=n)
    if listed:
        unknown = sorted({str(t) for t in listed} - set(_LAYER_KINDS))
        if unknown:
            warn(f"layer_types {unknown} are not modelled: those layers are costed as full attention")
        types = [_LAYER_KINDS.get(str(t), "full") for t in listed]
    else:
        types = _pattern_types(v, fam, n, max_pos, window)
    for kind, size, key in (("sliding", window, "sliding_window"), ("chunked", chunk, "attention_chunk_size")):
        if kind in types and not size:
            warn(f"{key} is not set: the {kind} layers are costed as full attention")
            types = ["full" if t == kind else t for t in types]
    kw: dict[str, Any] = dict(attn_sinks=bool(fam and fam.attn_sinks))
    if any(t != "full" for t in types):
        kw.update(layer_types=tuple(types), sliding_window=window if "sliding" in types else 0,
                  attention_chunk_size=chunk if "chunked" in types else 0)
    return kw


def _dtypes(v: Mapping, fam: Family | None, is_moe: bool) -> dict:
    name = rd.get_str(v, "torch_dtype") or rd.get_str(v, "dtype") or "bfloat16"
    name = name.removeprefix("torch.")
    if name in ("float32", "float"):          # fp32 checkpoints are served in 16 bits
        d = fam.fp32_as if fam else "bf16"
    elif name in _TORCH:
        d = _TORCH[name]
    else:
        warn(f"torch_dtype {short_repr(name)} is not known; weights assumed bf16")
        d = "bf16"
    # 8-bit checkpoints run W8A8 with a 16-bit KV cache unless quantization_config says otherwise
    kw = dict(weight_dtype=d, act_dtype=d, kv_dtype=d if d in ("bf16", "fp16") else "bf16")
    kw.update(quant_dtypes(v.get("quantization_config"), is_moe, d))
    return kw


def _warn_unmodelled(view: Mapping, cfg: Mapping) -> None:
    hits = [(k, msg) for k, cond, msg in UNMODELLED
            for src in (view, cfg) if k in src and cond(src[k])]
    for k, msg in dict(hits).items():
        warn(f"config key '{k}': {msg}")


def _name(cfg: Mapping, view: Mapping, mtype: str) -> str:
    for src in (cfg, view):
        v = src.get("_name_or_path")
        if v is not None and not isinstance(v, str):
            raise InferSimError(f"malformed config.json: field '_name_or_path' must be a string, "
                                f"got {type(v).__name__}")
        if v:
            return v
    return mtype if mtype != "(none)" else "custom"


def model_kwargs(source, name: str | None = None) -> dict:
    """ModelSpec keyword arguments from a config path, JSON text, bytes or a parsed dict."""
    cfg = rd.load(source)
    view, fam, mtype = _text_view(cfg)
    kw = _dims(view, fam)
    kw.update(_structure(view, fam, mtype))
    if fam is not None and fam.learned_positions:
        kw["learned_positions"] = kw["max_position"]
    kw.update(_moe(view, fam, kw))
    kw.update(_mla(view, kw["n_heads"]))
    kw.update(_attention(view, fam, kw["n_layers"], kw["max_position"]))
    kw.update(_dtypes(view, fam, "n_experts" in kw))
    _warn_unmodelled(view, cfg)
    kw["name"] = name or _name(cfg, view, mtype)
    if fam is None:
        unread = sorted(set(view) - view.read - _GENERIC)
        warn(f"unknown model_type {short_repr(mtype)}: loaded as a Llama-style decoder (gated FFN: "
             f"{kw['gated_ffn']}, RMSNorm, tied embeddings: {kw['tied_embeddings']}, QKV bias: "
             f"{kw['qkv_bias']}, all layers full attention unless layer_types says otherwise); "
             f"keys not read: {', '.join(unread) or 'none'}")
    return kw
