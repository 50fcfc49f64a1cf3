"""The model presets added as full HuggingFace config.json copies (presets/models/SOURCES.md):
each loads and holds its published parameter count within 2 %."""
import pytest

from infersim.model_presets import PRESETS

#: name → (published total, published active or None, where the figure is published)
PUBLISHED = {
    "Llama 3.3 70B": (70.55e9, None, "Llama-3.3-70B-Instruct = Llama 3.1 70B architecture: 70,553,706,496"),
    "Qwen2.5-7B-Instruct": (7.61e9, None, "Qwen2.5-7B model card: 'Number of Parameters: 7.61B'"),
    "Qwen3-32B": (32.8e9, None, "Qwen3-32B model card: 'Number of Parameters: 32.8B'"),
    "Qwen3-30B-A3B": (30.5e9, 3.3e9, "Qwen3-30B-A3B model card: '30.5B in total and 3.3B activated'"),
    "gpt-oss-120b": (117e9, 5.1e9, "gpt-oss-120b model card: '117B parameters with 5.1B active'"),
    "gpt-oss-20b": (21e9, 3.6e9, "gpt-oss-20b model card: '21B parameters with 3.6B active'"),
    # Meta's totals include the 871,932,416-parameter vision encoder, which infersim does not model
    "Llama 4 Scout 17B-16E": (109e9 - 871_932_416, 17e9, "HF blog llama4-release: '17B active ... ~109B total'"),
    "Llama 4 Maverick 17B-128E": (400e9 - 871_932_416, 17e9, "HF blog llama4-release: '17B active ... ~400B total'"),
    "DeepSeek-R1": (671e9, 37e9, "DeepSeek-R1 / V3 report: '671B total parameters with 37B activated'"),
}


@pytest.mark.parametrize("name", list(PUBLISHED))
def test_new_model_presets_match_their_published_counts(name):
    total, active, _ = PUBLISHED[name]
    m = PRESETS[name].model
    assert m.param_count() == pytest.approx(total, rel=0.02)
    if active is not None:
        counted = m.active_param_count()
        if name.startswith("gpt-oss"):      # OpenAI's active count leaves out the input embedding
            counted -= m.embedding_params()
        assert counted == pytest.approx(active, rel=0.02)


def test_architecture_features_are_read():
    big, scout, mav = (PRESETS[n].model for n in ("gpt-oss-120b", "Llama 4 Scout 17B-16E", "Llama 4 Maverick 17B-128E"))
    assert big.attn_sinks and big.expert_dtype == "mxfp4" and big.sliding_window == 128
    assert big.layer_types[:2] == ("sliding", "full") and big.layer_type_counts()["sliding"] == 18
    assert scout.attention_chunk_size == 8192 and scout.layer_type_counts() == {"full": 12, "sliding": 0, "chunked": 36}
    assert mav.moe_layer_step == 2 and mav.n_moe_layers == 24 and scout.n_moe_layers == 48
    r1, v3 = PRESETS["DeepSeek-R1"].model, PRESETS["DeepSeek-V3"].model
    assert r1.param_count() == v3.param_count() and r1.weight_dtype == "fp8"   # the published fp8 checkpoint
