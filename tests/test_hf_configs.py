"""Published HuggingFace config.json files load with the right counts, attention kinds and dtypes
(fixtures and their published figures: tests/fixtures/hf_configs/INDEX.json)."""
import json
import warnings
from pathlib import Path

import pytest

from infersim import InferSimWarning, ModelSpec
from infersim.loaders.hf_model import model_from_hf_config
from infersim.model_presets import PRESETS
from infersim.specs.model import DTYPE_BYTES

FIX = Path(__file__).parent / "fixtures" / "hf_configs"
INDEX = {e["file"]: e for e in json.loads((FIX / "INDEX.json").read_text())["configs"]}
COUNTED = [f for f, e in INDEX.items() if e["counted"]]


def load(file: str) -> ModelSpec:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InferSimWarning)
        return model_from_hf_config(FIX / file)


def close(got: float, fig: dict) -> bool:
    """Within 1 %, or within one unit of the figure's last published digit (3.3B: 0.1B)."""
    return abs(got - fig["value"]) <= max(0.01 * fig["value"], fig["unit"])


def expected_total(e: dict) -> float:
    return e["published"]["total"]["value"] - e["convention"]["not_modelled_params"]


def test_index_matches_the_fixture_files():
    assert sorted(INDEX) == sorted(p.name for p in FIX.glob("*.json") if p.name != "INDEX.json")
    for e in INDEX.values():
        assert e["file_source"] and e["verbatim"] and e["convention"]["counting"]
        if e["counted"]:
            assert e["published"]["params_source"], e["file"]


@pytest.mark.parametrize("file", COUNTED)
def test_counts_match_published(file):
    e, m = INDEX[file], load(file)
    pub, conv = e["published"], e["convention"]
    if pub["total"]:
        fig = {**pub["total"], "value": expected_total(e)}
        assert close(m.param_count(), fig), (m.param_count(), fig)
    if pub["active"]:
        active = m.active_param_count()
        if conv["active_excludes_input_embedding"]:
            active -= m.embedding_params()
        assert close(active, pub["active"]), (active, pub["active"])
    if pub["non_embedding"]:
        non_emb = m.param_count() - m.embedding_params() - m.lm_head_params()
        assert close(non_emb, pub["non_embedding"]), (non_emb, pub["non_embedding"])


def test_at_least_twelve_totals_within_one_percent():
    within = [f for f in COUNTED if INDEX[f]["published"]["total"]
              and abs(load(f).param_count() / expected_total(INDEX[f]) - 1) <= 0.01]
    assert len(within) >= 12, within


def test_gemma2_sliding_layers_cut_the_kv_cache():
    m = load("google__gemma-2-9b-it.json")
    assert m.layer_types[:4] == ("sliding", "full", "sliding", "full")   # HF: even layers slide
    assert m.sliding_window == 4096 and m.tied_embeddings and m.weight_dtype == "bf16"
    full = 32768 * m.kv_bytes_per_token
    # 21 full layers x 32768 + 21 sliding x 4096 tokens, 2 x 8 heads x 256 dims x 2 bytes each
    assert m.kv_cache_bytes(32768) == (21 * 32768 + 21 * 4096) * 2 * 8 * 256 * 2
    assert m.kv_cache_bytes(32768) / full == pytest.approx(0.5625)
    assert m.kv_cache_bytes(32768) <= 0.6 * full
    assert m.kv_cache_bytes(2048) == 2048 * m.kv_bytes_per_token      # below the window: all cached


def test_gpt_oss_20b_mxfp4_experts():
    m = load("openai__gpt-oss-20b.json")
    assert (m.weight_dtype, m.expert_dtype) == ("bf16", "mxfp4")
    assert m.attn_sinks and m.sliding_window == 128 and m.layer_type_counts()["sliding"] == 12
    routed = 24 * 32 * (3 * 2880 * 2880 + 3 * 2880)            # gate/up/down + their biases
    assert m.routed_expert_params() == routed
    assert m.weight_bytes() == (m.param_count() - routed) * 2 + routed * (0.5 + 1 / 32)
    assert 11e9 <= m.weight_bytes() <= 16e9
    assert m.bytes_breakdown()["moe_experts"] == pytest.approx(
        routed * (0.5 + 1 / 32) + 24 * 2880 * 32 * 2)          # routers stay bf16


def test_llama4_scout_loads_the_published_file_unmodified():
    with pytest.warns(InferSimWarning, match="vision_config"):
        m = model_from_hf_config(FIX / "meta-llama__llama-4-scout-17b-16e-instruct.json")
    assert (m.hidden, m.n_layers, m.n_experts, m.n_shared_experts, m.moe_ffn_hidden) == (5120, 48, 16, 1, 8192)
    assert m.n_moe_layers == 48 and m.ffn_hidden == 0
    # HF Llama4TextConfig: no_rope_layers[i] = (i + 1) % 4 != 0; RoPE layers attend in 8192-token chunks
    full = [i for i, t in enumerate(m.layer_types) if t == "full"]
    assert full == list(range(3, 48, 4)) and m.attention_chunk_size == 8192
    # 10M-token context: 36 chunked layers cache 8192 tokens, 12 global layers all of them
    assert m.kv_layer_tokens(10_000_000) == 12 * 10_000_000 + 36 * 8192


def test_llama4_maverick_interleaves_moe_and_dense_layers():
    m = load("meta-llama__llama-4-maverick-17b-128e-instruct.json")
    assert m.moe_layer_step == 2 and m.first_k_dense == 0
    assert m.moe_layer_mask[:4] == (False, True, False, True)      # HF moe_layers = range(1, 48, 2)
    assert (m.n_moe_layers, m.n_dense_layers, m.ffn_hidden) == (24, 24, 16384)
    assert 399e9 < m.param_count() + 871_932_416 < 402e9


def test_gemma3_minimal_text_config_takes_class_defaults():
    m = load("google__gemma-3-4b-it.json")
    assert (m.vocab, m.n_heads, m.n_kv_heads, m.head_dim) == (262208, 8, 4, 256)
    assert m.tied_embeddings and m.sliding_window == 1024
    assert [i for i, t in enumerate(m.layer_types) if t == "full"] == [5, 11, 17, 23, 29]


@pytest.mark.parametrize("file, dtypes", [
    ("qwen__qwen3-30b-a3b-fp8.json", ("fp8", "fp8", "fp8", "bf16")),        # block fp8, W8A8
    ("deepseek-ai__deepseek-v3.json", ("fp8", "fp8", "fp8", "bf16")),
    ("nvidia__kimi-k2.5-nvfp4.json", ("bf16", "fp4", "fp4", "fp8")),         # attention ignored
    ("ssg97__gemma-2-27b-it-gptq-int4.json", ("int4", "int4", "bf16", "bf16")),
    ("openai__gpt-oss-120b.json", ("bf16", "mxfp4", "bf16", "bf16")),
])
def test_quantization_config_sets_dtypes(file, dtypes):
    m = load(file)
    assert (m.weight_dtype, m.expert_dtype, m.act_dtype, m.kv_dtype) == dtypes


def test_nvfp4_bytes_include_block_scales():
    m = load("nvidia__kimi-k2.5-nvfp4.json")
    routed = m.routed_expert_params()
    assert m.weight_bytes() == pytest.approx((m.param_count() - routed) * 2 + routed * 0.5625)
    assert m.expert_gemm_dtype == "fp4" and m.gemm_dtype == "bf16"


def test_text_config_and_top_level_multimodal_layouts():
    small = load("mistralai__mistral-small-3.1-24b-instruct-2503.json")
    assert (small.n_layers, small.head_dim, small.vocab, small.layer_types) == (40, 128, 131072, ())
    vl, text = load("qwen__qwen2.5-vl-7b-instruct.json"), load("qwen__qwen2.5-7b-instruct.json")
    assert vl.param_count() == text.param_count() and vl.qkv_bias


def test_sliding_window_rules_per_family():
    assert load("microsoft__phi-3-mini-4k-instruct.json").layer_type_counts()["sliding"] == 32
    assert load("qwen__qwen2.5-7b-instruct.json").layer_types == ()    # use_sliding_window false
    assert load("mistralai__mistral-7b-instruct-v0.3.json").layer_types == ()   # null window
    m = PRESETS["Mistral 7B"].model           # v0.1: 4096-token window on every layer
    assert m.layer_type_counts()["sliding"] == 32 and m.sliding_window == 4096


def test_gemma2_loads_without_warnings():
    """Soft-capping, query_pre_attn_scalar, rope keys and cache_implementation change no cost."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", InferSimWarning)
        model_from_hf_config(FIX / "google__gemma-2-9b-it.json")
        model_from_hf_config(FIX / "openai__gpt-oss-20b.json")


def test_fp4_dtype_bytes():
    assert DTYPE_BYTES["fp4"] == 0.5625 and DTYPE_BYTES["mxfp4"] == 0.53125 and DTYPE_BYTES["int4"] == 0.53125
