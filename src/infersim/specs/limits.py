"""Bounds of the model's integer dimensions: one table for :class:`~infersim.specs.model.ModelSpec`'s
checks and the config loader's typed reads (:mod:`infersim.loaders.hf_config`)."""

#: Physically sane upper bounds of the model dimensions (the largest published models are 10-100x
#: below each), so that no input makes a per-layer list or a divisor search run for hours.
LIMITS: dict[str, int] = {
    "n_layers": 10_000, "hidden": 1_048_576, "n_heads": 65_536, "n_kv_heads": 65_536,
    "head_dim": 65_536, "vocab": 10_000_000, "ffn_hidden": 16_777_216, "moe_ffn_hidden": 16_777_216,
    "n_experts": 65_536, "n_experts_per_tok": 65_536, "n_shared_experts": 65_536,
    "first_k_dense": 10_000, "moe_layer_step": 10_000, "learned_positions": 1 << 34,
    "max_position": 1 << 34, "sliding_window": 1 << 34, "attention_chunk_size": 1 << 34,
    "kv_lora_rank": 1_048_576, "q_lora_rank": 1_048_576, "qk_rope_head_dim": 65_536,
    "qk_nope_head_dim": 65_536, "v_head_dim": 65_536,
}
