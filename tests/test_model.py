import json

import pytest

from infersim import InferSimError, ModelSpec
from infersim.loaders.hf_model import model_from_hf_config
from infersim.model_presets import PRESETS, get_model


@pytest.mark.parametrize("name", list(PRESETS))
def test_param_counts_match_published(name):
    p = PRESETS[name]
    assert p.model.param_count() == pytest.approx(p.published_params, rel=0.01)


def test_llama_70b_exact_count_and_kv_bytes():
    m = PRESETS["Llama 3.1 70B"].model
    # 80 layers x (attention 150,994,944 + FFN 704,643,072 + norms 16,384) + 2 x 128256 x 8192 + 8192
    assert m.param_count() == 70_553_706_496
    # 80 layers x 2 (K, V) x 8 heads x 128 dims x 2 bytes
    assert m.kv_bytes_per_token == 327_680


def test_from_hf_config_sources_agree(tmp_path):
    cfg = {"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
           "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32,
           "vocab_size": 128256}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    a = model_from_hf_config(cfg, name="x")
    b = model_from_hf_config(str(path), name="x")
    c = model_from_hf_config(json.dumps(cfg), name="x")
    assert a == b == c
    assert a.head_dim == 128 and a.gated_ffn and not a.tied_embeddings
    assert a.param_count() == PRESETS["Llama 3.1 8B"].model.param_count()


def test_qwen2_has_qkv_bias():
    m = PRESETS["Qwen2.5 72B"].model
    assert m.qkv_bias
    no_bias = ModelSpec(**{**m.to_dict(), "qkv_bias": False})
    assert m.param_count() - no_bias.param_count() == 80 * (8192 + 2 * 1024)


@pytest.mark.parametrize("text, needle", [
    ("{not json", "malformed config.json"),
    ('{"model_type": "llama", "hidden_size": 4096}', "malformed config.json"),
    ('{"model_type": "llama", "hidden_size": "big", "num_attention_heads": 32, '
     '"num_hidden_layers": 2, "vocab_size": 10, "intermediate_size": 8}', "malformed config.json"),
    ('[1, 2]', "top level must be a JSON object"),
    ('{"hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 5, '
     '"num_hidden_layers": 2, "vocab_size": 10, "intermediate_size": 8}', "multiple of n_kv_heads"),
    ('{"hidden_size": -4096, "num_attention_heads": 32, "head_dim": 128, '
     '"num_hidden_layers": 2, "vocab_size": 10, "intermediate_size": 8}', "must be > 0"),
])
def test_malformed_configs_are_one_line_errors(text, needle):
    with pytest.raises(InferSimError) as exc:
        model_from_hf_config(text)
    assert needle in str(exc.value)
    assert "\n" not in str(exc.value)


def test_unknown_preset_names_choices():
    with pytest.raises(InferSimError, match="valid: Llama 3.1 8B"):
        get_model("Llama 9")


def test_dtype_validation_and_bytes():
    m = PRESETS["Llama 3.1 8B"].model
    # fp8 halves every weight but the embedding and LM head, which quantised checkpoints keep 16-bit
    head = m.embedding_params() + m.lm_head_params()
    assert m.with_dtypes(weight="fp8").weight_bytes() == pytest.approx((m.weight_bytes() - 2 * head) / 2 + 2 * head)
    assert m.with_dtypes(weight="fp8", head="fp8").weight_bytes() == pytest.approx(m.weight_bytes() / 2)
    # int4 is group-quantized: 4 bits + a 16-bit scale and zero point per 128 values
    assert m.with_dtypes(weight="int4", head="int4").weight_bytes() == pytest.approx(
        m.weight_bytes() * (0.5 + 4 / 128) / 2)
    with pytest.raises(InferSimError, match="valid choices"):
        m.with_dtypes(weight="fp7")
