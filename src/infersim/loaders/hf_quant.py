"""``quantization_config`` → weight, routed-expert, activation and KV-cache dtypes.

=====================  ===============================  =========================================
quant_method           weights                          activations / KV cache
=====================  ===============================  =========================================
fp8, fbgemm_fp8        fp8 (block or per-channel scales) fp8 (dynamic or static)
mxfp4 (gpt-oss)        mxfp4                            unchanged (16-bit)
awq, gptq              int4 (group 128) / int8 by bits  unchanged
bitsandbytes           4-bit NF4 ≈ int4 (warned), int8  unchanged
modelopt               FP8 → fp8, NVFP4 → fp4,          FP8 → fp8, NVFP4 → fp4, W4A8 → fp8;
                       W4A16/W4A8_AWQ → int4            kv_cache_quant_algo / kv_cache_scheme
compressed-tensors     from config_groups: 8-bit float  from input_activations and
                       fp8, 4-bit float fp4 (group 16)  kv_cache_scheme
                       or mxfp4 (group 32), int4, int8
=====================  ===============================  =========================================

Which weights: when the exclusion lists (``modules_to_not_convert``, ``ignore``,
``exclude_modules``) keep attention in 16 bits, an MoE model gets the quantized dtype on its
routed experts only (``expert_weight_dtype``: gpt-oss, NVFP4 MoE checkpoints) and a dense model
on everything but its attention projections, which keep the checkpoint dtype
(``attn_weight_dtype``: Meta's Llama 3.1 405B FP8, FFN-only row-wise fp8); otherwise every
weight takes it. The embedding and LM head stay 16-bit (``ModelSpec.head_dtype``: every method
above leaves ``lm_head`` unquantised, 2.1 of Llama 3.1 8B's 9.1 GB in fp8); routers and norms are
left in the quantized dtype (under 1 % of the bytes). Other methods load in the checkpoint's
dtype with a warning.
"""
from __future__ import annotations

from typing import Any, Mapping

from infersim.errors import short_repr, warn

_EXCLUDE_KEYS = ("modules_to_not_convert", "ignore", "exclude_modules", "ignored_layers")
#: Module-name segments that mean "attention projections" (not "post_attention_layernorm").
_ATTN_SEGMENTS = ("self_attn", "attn", "attention", "self_attention", "q_proj", "qkv_proj", "query_key_value")
_MODELOPT = {"FP8": ("fp8", "fp8"), "FP8_BLOCKWISE": ("fp8", "fp8"), "FP8_PB_WO": ("fp8", None),
             "FP8_PER_CHANNEL_PER_TOKEN": ("fp8", "fp8"), "NVFP4": ("fp4", "fp4"),
             "NVFP4_AWQ": ("fp4", "fp4"), "W4A16_AWQ": ("int4", None), "W4A8_AWQ": ("int4", "fp8"),
             "MXFP4": ("mxfp4", None), "W8A16": ("int8", None), "W8A8_SQ_PER_CHANNEL": ("int8", "int8")}


def _tensor_dtype(spec: Mapping | None) -> str | None:
    """A compressed-tensors / modelopt tensor scheme ({num_bits, type, group_size}) as a dtype."""
    if not isinstance(spec, Mapping) or spec.get("num_bits") is None:
        return None
    bits, kind, group = spec.get("num_bits"), spec.get("type", "int"), spec.get("group_size")
    if bits == 8:
        return "fp8" if kind == "float" else "int8"
    if bits == 4 and kind == "float":
        return "mxfp4" if group == 32 else "fp4"
    if bits == 4:
        return "int4"
    return None


def _compressed(qc: Mapping) -> tuple[str | None, str | None]:
    groups = qc.get("config_groups")
    group = next(iter(groups.values()), None) if isinstance(groups, Mapping) and groups else None
    if not isinstance(group, Mapping):
        return None, None
    return _tensor_dtype(group.get("weights")), _tensor_dtype(group.get("input_activations"))


def _by_bits(qc: Mapping, method: str) -> tuple[str | None, str | None]:
    bits = qc.get("bits", qc.get("w_bit"))
    if bits == 8:
        return "int8", None
    if bits != 4:
        warn(f"quantization_config: {method} with bits={short_repr(bits)} is not modelled; weights counted as int4")
    return "int4", None


def _method_dtypes(method: str, qc: Mapping) -> tuple[str | None, str | None]:
    """(weight dtype, activation dtype or None) of a quantization method; (None, None) when the
    method is not modelled."""
    if method in ("fp8", "fbgemm_fp8"):
        return "fp8", "fp8"
    if method == "mxfp4":
        return "mxfp4", None
    if method in ("awq", "gptq", "auto-round", "autoround"):
        return _by_bits(qc, method)
    if method == "bitsandbytes":
        if qc.get("load_in_8bit"):
            return "int8", None
        warn("quantization_config: bitsandbytes 4-bit (NF4/FP4, 64-value blocks) modelled as int4")
        return "int4", None
    if method == "modelopt":
        algo = str(qc.get("quant_algo", "")).upper()
        if algo in _MODELOPT:
            return _MODELOPT[algo]
        return _compressed(qc)
    if method == "compressed-tensors":
        return _compressed(qc)
    return None, None


def _kv_dtype(qc: Mapping) -> str | None:
    algo = str(qc.get("kv_cache_quant_algo") or "").upper()
    if algo in ("FP8", "INT8"):
        return algo.lower()
    kv = _tensor_dtype(qc.get("kv_cache_scheme"))
    return kv if kv in ("fp8", "int8") else None


def _attention_excluded(qc: Mapping) -> bool:
    """Whether an exclusion pattern names the attention projections (``model.layers.*.self_attn``,
    ``language_model.model.layers.0.self_attn*``)."""
    patterns = [str(p) for k in _EXCLUDE_KEYS if isinstance(qc.get(k), list) for p in qc[k]]
    segments = {seg.rstrip("*") for p in patterns for seg in p.split(".")}
    return bool(segments & set(_ATTN_SEGMENTS))


def quant_dtypes(qc: Any, is_moe: bool, base: str = "bf16") -> dict[str, str]:
    """ModelSpec dtype fields set by ``quantization_config`` (empty when there is none or its
    method is not modelled, with a warning naming it); ``base`` is the checkpoint dtype that
    excluded attention projections keep."""
    if qc is None:
        return {}
    if not isinstance(qc, Mapping):
        from infersim.errors import InferSimError
        raise InferSimError(f"malformed config.json: field 'quantization_config' must be a JSON object, "
                            f"got {type(qc).__name__}")
    method = str(qc.get("quant_method", "")).lower()
    weight, act = _method_dtypes(method, qc)
    if weight is None:
        warn(f"quantization_config: quant_method {method or '(none)'!r} is not modelled; "
             "weights counted in the checkpoint dtype (torch_dtype)")
        return {}
    out: dict[str, str] = {}
    if is_moe and _attention_excluded(qc):
        out["expert_weight_dtype"] = weight
    else:
        out["weight_dtype"] = weight
        if _attention_excluded(qc):
            out["attn_weight_dtype"] = base
    if act:
        out["act_dtype"] = act
    kv = _kv_dtype(qc)
    if kv:
        out["kv_dtype"] = kv
    return out
