"""The model families ``config.json`` loading knows, with the defaults their HuggingFace config
classes apply to absent keys (transformers ``configuration_<family>.py``), and the per-family
rules that are not keys at all (Llama 4's always-on shared expert, gpt-oss's attention sinks,
Gemma's alternating sliding-window layers).

Multimodal configs nest the decoder under ``text_config``; :data:`TEXT_ALIASES` maps their
top-level ``model_type`` to the decoder's family when ``text_config`` does not name one.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping


@dataclass(frozen=True)
class Family:
    """How one HF ``model_type`` maps onto :class:`~infersim.specs.model.ModelSpec`.

    ``style``: "llama" (hidden_size/num_attention_heads keys, RMSNorm) or "gpt" (n_embd/n_head
    keys accepted, LayerNorm, biases). ``layers``: how per-layer attention kinds follow when the
    config has no ``layer_types`` list — "none" (all full), "all" (every layer slides when
    ``sliding_window`` < max_position: Mistral, Mixtral, Phi-3), "qwen" (``use_sliding_window``
    with layers >= ``max_window_layers`` sliding), "alternate" (Gemma 2: even layers slide),
    "pattern" (Gemma 3: every ``sliding_window_pattern``-th layer is global), "llama4" (RoPE
    layers use chunked attention, every ``no_rope_layer_interval``-th layer is a global NoPE one).
    """

    name: str
    defaults: Mapping[str, Any] = field(default_factory=dict)
    style: str = "llama"
    gated: bool = True
    dense_bias: bool = False
    learned_positions: bool = False
    layers: str = "none"
    shared_experts: int = 0
    dense_ffn_key: str = "intermediate_size"
    attn_sinks: bool = False
    fp32_as: str = "bf16"      # 16-bit type fp32 checkpoints are served in (fp16 for GPT-era models)


_LLAMA = {"tie_word_embeddings": False, "attention_bias": False, "max_position_embeddings": 2048}
_QWEN = {"tie_word_embeddings": False, "use_sliding_window": False, "max_window_layers": 28,
         "max_position_embeddings": 32768}
_GEMMA2 = {"vocab_size": 256000, "hidden_size": 2304, "intermediate_size": 9216, "num_hidden_layers": 26,
           "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256,
           "max_position_embeddings": 8192, "tie_word_embeddings": True, "attention_bias": False,
           "sliding_window": 4096}
_GEMMA3 = {**_GEMMA2, "vocab_size": 262208, "max_position_embeddings": 131072, "sliding_window_pattern": 6}
_LLAMA4 = {"vocab_size": 202048, "hidden_size": 5120, "intermediate_size": 8192,
           "intermediate_size_mlp": 16384, "num_hidden_layers": 48, "num_attention_heads": 40,
           "num_key_value_heads": 8, "head_dim": 128, "max_position_embeddings": 131072,
           "tie_word_embeddings": False, "attention_bias": False, "num_experts_per_tok": 1,
           "num_local_experts": 16, "interleave_moe_layer_step": 1, "no_rope_layer_interval": 4,
           "attention_chunk_size": 8192}
_GPT_OSS = {"vocab_size": 201088, "hidden_size": 2880, "intermediate_size": 2880, "num_hidden_layers": 36,
            "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 64,
            "max_position_embeddings": 131072, "tie_word_embeddings": False, "attention_bias": True,
            "num_local_experts": 128, "num_experts_per_tok": 4, "sliding_window": 128}

FAMILIES: dict[str, Family] = {f.name: f for f in [
    Family("llama", _LLAMA),
    Family("mistral", {**_LLAMA, "sliding_window": 4096, "max_position_embeddings": 131072}, layers="all"),
    Family("mixtral", {**_LLAMA, "max_position_embeddings": 131072}, layers="all"),
    Family("phi3", {**_LLAMA, "max_position_embeddings": 4096}, layers="all"),
    Family("qwen2", {**_QWEN, "attention_bias": True}, layers="qwen"),      # Qwen2 has QKV biases
    Family("qwen2_moe", {**_QWEN, "attention_bias": True}, layers="qwen"),
    Family("qwen3", {**_QWEN, "attention_bias": False}, layers="qwen"),
    Family("qwen3_moe", {**_QWEN, "attention_bias": False}, layers="qwen"),
    Family("deepseek_v2", {"tie_word_embeddings": False, "moe_layer_freq": 1, "q_lora_rank": 1536,
                           "max_position_embeddings": 2048}),
    Family("deepseek_v3", {"tie_word_embeddings": False, "moe_layer_freq": 1, "q_lora_rank": 1536,
                           "first_k_dense_replace": 3, "n_shared_experts": 1,
                           "max_position_embeddings": 4096}),
    Family("gemma", {"vocab_size": 256000, "hidden_size": 3072, "intermediate_size": 24576,
                     "num_hidden_layers": 28, "num_attention_heads": 16, "num_key_value_heads": 16,
                     "head_dim": 256, "max_position_embeddings": 8192, "tie_word_embeddings": True,
                     "attention_bias": False}),
    Family("gemma2", _GEMMA2, layers="alternate"),
    Family("gemma3_text", _GEMMA3, layers="pattern"),
    Family("gpt_oss", _GPT_OSS, dense_bias=True, attn_sinks=True),
    Family("llama4_text", _LLAMA4, layers="llama4", shared_experts=1, dense_ffn_key="intermediate_size_mlp"),
    Family("gpt2", {"tie_word_embeddings": True, "attention_bias": True}, style="gpt", gated=False,
           dense_bias=True, learned_positions=True, fp32_as="fp16"),
    Family("gptj", {"tie_word_embeddings": False, "attention_bias": False}, style="gpt", gated=False,
           dense_bias=True, fp32_as="fp16"),
    Family("gpt_neox", {"tie_word_embeddings": False, "attention_bias": True}, style="gpt", gated=False,
           dense_bias=True, fp32_as="fp16"),
]}

#: Other names of the same decoder: legacy GPT names and multimodal wrappers whose
#: ``text_config`` may omit its own model_type.
ALIASES: dict[str, str] = {
    "gpt3": "gpt2", "openai-gpt": "gpt2", "gpt_neo": "gpt2",
    "llama4": "llama4_text", "gemma3": "gemma3_text", "mistral3": "mistral",
    "qwen2_vl": "qwen2", "qwen2_5_vl": "qwen2", "qwen2_vl_text": "qwen2", "qwen2_5_vl_text": "qwen2",
    "kimi_k2": "deepseek_v3", "kimi_k25": "deepseek_v3",
}
#: Unknown families load as a Llama-style decoder; these ship without a gated FFN.
UNGATED_UNKNOWN = ("phi", "falcon")


def family_of(model_type: str | None) -> Family | None:
    """The family of ``model_type`` (aliases resolved), or None when infersim does not know it."""
    if model_type is None:
        return None
    return FAMILIES.get(ALIASES.get(model_type, model_type))
