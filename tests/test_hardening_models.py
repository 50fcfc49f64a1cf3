"""Bad config.json files are one-line errors (library) and `error:` + exit 2 (CLI), never a
traceback or a hang; every loader warning names its key."""
import json
import os
import subprocess
import sys
import warnings

import pytest

from infersim import InferSimError, InferSimWarning, ModelSpec
from infersim.loaders.hf_model import model_from_hf_config
from infersim.loaders.hf_read import MAX_CONFIG_BYTES

LLAMA = {"model_type": "llama", "hidden_size": 256, "intermediate_size": 512, "num_attention_heads": 4,
         "num_key_value_heads": 2, "num_hidden_layers": 2, "vocab_size": 1000}
QWEN_MOE = {**LLAMA, "model_type": "qwen2_moe", "num_experts": 8, "num_experts_per_tok": 2,
            "moe_intermediate_size": 128, "shared_expert_intermediate_size": 256}


def cfg(**kw) -> str:
    return json.dumps({**LLAMA, **kw})


BAD_TEXT = {
    "nan": ('{"model_type": "llama", "hidden_size": NaN}', "'hidden_size' is not a finite number"),
    "infinity": ('{"model_type": "llama", "rope_theta": Infinity}', "'rope_theta' is not a finite number"),
    "1e400": ('{"model_type": "llama", "hidden_size": 1e400}', "'hidden_size' is not a finite number"),
    "gpt2 n_head 0": (json.dumps({"model_type": "gpt2", "n_embd": 768, "n_head": 0, "n_layer": 2,
                                  "vocab_size": 100}), "'n_head' must be > 0"),
    "qwen2_moe width 0": (json.dumps({**QWEN_MOE, "moe_intermediate_size": 0}), "'moe_intermediate_size' must be > 0"),
    "deep nesting": ("[" * 200_000 + "]" * 200_000, "nested too deeply"),
    "name dict": (cfg(_name_or_path={"a": 1}), "'_name_or_path' must be a string"),
    "layers 1e12": (cfg(num_hidden_layers=10**12), "'num_hidden_layers' must be > 0 and <= 10,000"),
    "heads 2^40": (cfg(num_attention_heads=2**40), "'num_attention_heads' must be > 0 and <= 65,536"),
    "string dim": (cfg(hidden_size="4096"), "'hidden_size' must be an integer"),
    "bool flag": (cfg(tie_word_embeddings="yes"), "'tie_word_embeddings' must be true or false"),
    "layer_types length": (cfg(layer_types=["full_attention"]), "'layer_types' has 1 entries"),
    "text_config list": (json.dumps({"model_type": "llama4", "text_config": [1]}), "'text_config' must be a JSON object"),
    "quant not object": (cfg(quantization_config="fp8"), "'quantization_config' must be a JSON object"),
}


@pytest.mark.parametrize("name", list(BAD_TEXT))
def test_bad_config_text_is_a_one_line_error(name):
    text, needle = BAD_TEXT[name]
    with pytest.raises(InferSimError) as exc:
        model_from_hf_config(text)
    assert needle in str(exc.value) and "\n" not in str(exc.value)


def test_bad_files_are_one_line_errors(tmp_path, monkeypatch):
    latin1 = tmp_path / "latin1.json"
    latin1.write_bytes(b'{"model_type": "llama", "_name_or_path": "caf\xe9"}')
    binary = tmp_path / "model.safetensors"
    binary.write_bytes(bytes(range(256)) * 4)
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (MAX_CONFIG_BYTES + 1))
    cases = [(latin1, "not UTF-8 text (byte 0xe9"), (binary, "not UTF-8 text"), (tmp_path, "is a directory"),
             (big, "larger than 4 MiB")]
    for path, needle in cases:
        with pytest.raises(InferSimError, match=needle.replace("(", r"\(")):
            model_from_hf_config(str(path))
    unreadable = tmp_path / "config.json"
    unreadable.write_text(cfg())

    def deny(*a, **k):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr("builtins.open", deny)
    with pytest.raises(InferSimError, match="cannot read config.json .*Permission denied"):
        model_from_hf_config(str(unreadable))


def test_float8_torch_dtype_is_fp8_and_fp32_is_16_bit():
    m = model_from_hf_config(cfg(torch_dtype="float8_e4m3fn"))
    assert (m.weight_dtype, m.act_dtype, m.kv_dtype) == ("fp8", "fp8", "bf16")
    assert model_from_hf_config(cfg(torch_dtype="float32")).weight_dtype == "bf16"
    gptj = {"model_type": "gptj", "n_embd": 256, "n_head": 4, "n_layer": 2, "vocab_size": 100,
            "torch_dtype": "float32"}                # GPT-era fp32 checkpoints are served in fp16
    assert model_from_hf_config(gptj).weight_dtype == "fp16"


def test_dimension_caps_hold_for_direct_construction():
    base = model_from_hf_config(cfg()).to_dict()
    with pytest.raises(InferSimError, match="n_layers must be > 0 and <= 10,000"):
        ModelSpec(**{**base, "n_layers": 10**12})
    with pytest.raises(InferSimError, match="layer_types has 1 entries"):
        ModelSpec(**{**base, "layer_types": ("full",)})
    with pytest.raises(InferSimError, match="'sliding' layers need sliding_window > 0"):
        ModelSpec(**{**base, "layer_types": ("sliding", "full")})
    with pytest.raises(InferSimError, match="sliding_window needs 'sliding' entries"):
        ModelSpec(**{**base, "sliding_window": 4096})
    with pytest.raises(InferSimError, match="expert_weight_dtype need n_experts > 0"):
        ModelSpec(**{**base, "expert_weight_dtype": "fp4"})
    # JSON round trips (the UI) hand back lists
    spec = ModelSpec(**{**base, "layer_types": ["sliding", "full"], "sliding_window": 64})
    assert spec.layer_types == ("sliding", "full")


def test_interleaved_moe_placement_counts():
    m = model_from_hf_config(json.dumps({**QWEN_MOE, "num_hidden_layers": 5, "decoder_sparse_step": 2}))
    assert m.moe_layer_mask == (False, True, False, True, False)     # HF: (i + 1) % step == 0
    assert (m.n_moe_layers, m.n_dense_layers, m.ffn_hidden) == (2, 3, 512)
    dense = 3 * m.dense_ffn_params()
    moe = 2 * m.moe_layer_ffn_params()[0]
    common = 5 * (m.attn_params_per_layer() + m.norm_params_per_layer())
    assert m.param_count() == common + dense + moe + m.embedding_params() + m.lm_head_params() + 256
    with pytest.raises(InferSimError, match="no MoE layer"):
        ModelSpec(**{**m.to_dict(), "moe_layer_step": 6})


# ----- warnings: each names its key --------------------------------------------------------------
WARNS = {
    "num_nextn_predict_layers": ({"num_nextn_predict_layers": 1}, "num_nextn_predict_layers"),
    "vision_config": ({"vision_config": {"hidden_size": 8}}, "vision_config"),
    "audio_config": ({"audio_config": {"d_model": 8}}, "audio_config"),
    "cross_attention_layers": ({"cross_attention_layers": [1]}, "cross_attention_layers"),
    "is_encoder_decoder": ({"is_encoder_decoder": True}, "is_encoder_decoder"),
    "index_topk": ({"index_topk": 2048}, "index_topk"),
    "unknown layer type": ({"layer_types": ["linear_attention", "full_attention"]}, "linear_attention"),
    "sliding without window": ({"layer_types": ["sliding_attention", "full_attention"]}, "sliding_window is not set"),
    "unknown torch_dtype": ({"torch_dtype": "float6"}, "torch_dtype 'float6'"),
    "unknown quant": ({"quantization_config": {"quant_method": "hqq"}}, "quant_method 'hqq'"),
    "bnb 4-bit": ({"quantization_config": {"quant_method": "bitsandbytes", "load_in_4bit": True}}, "bitsandbytes"),
    "gptq 3-bit": ({"quantization_config": {"quant_method": "gptq", "bits": 3}}, "bits=3"),
}


def test_dense_fp8_with_attention_excluded_keeps_attention_in_16_bits():
    """Meta's Llama 3.1 405B FP8 (fbgemm_fp8, attention in modules_to_not_convert): the FFN
    streams 1-byte weights, the attention projections the checkpoint's 2 bytes."""
    q = {"quant_method": "fbgemm_fp8", "modules_to_not_convert": ["model.layers.*.self_attn"]}
    m = model_from_hf_config(cfg(quantization_config=q))
    assert (m.weight_dtype, m.attn_weight_dtype, m.attn_proj_dtype) == ("fp8", "bf16", "bf16")
    attn, ffn = m.n_layers * m.attn_params_per_layer(), m.n_layers * m.dense_ffn_params()
    parts = m.bytes_breakdown()
    assert parts["attention"] == 2 * attn and parts["ffn"] == ffn
    head = m.embedding_params() + m.lm_head_params()          # the embedding and LM head stay 16-bit
    assert m.weight_bytes() == (m.param_count() - attn - head) * 1 + attn * 2 + head * 2
    assert m.with_dtypes(weight="bf16").attn_weight_dtype == ""          # a new weight dtype sets all


@pytest.mark.parametrize("name", list(WARNS))
def test_each_warning_names_its_key(name):
    extra, needle = WARNS[name]
    with pytest.warns(InferSimWarning, match=needle):
        model_from_hf_config(cfg(**extra))


def test_moe_placement_warnings():
    off = json.dumps({**QWEN_MOE, "model_type": "llama4_text", "num_local_experts": 8, "num_hidden_layers": 4,
                      "moe_layers": [0, 1, 3], "intermediate_size_mlp": 512})
    with pytest.warns(InferSimWarning, match="moe_layers lists 3 MoE layers"):
        m = model_from_hf_config(off)
    assert m.n_moe_layers == 3
    mid = json.dumps({**QWEN_MOE, "num_hidden_layers": 4, "mlp_only_layers": [2]})
    with pytest.warns(InferSimWarning, match=r"mlp_only_layers \[2\]"):
        assert model_from_hf_config(mid).n_dense_layers == 1


def test_unknown_model_type_lists_assumptions_and_unread_keys():
    with pytest.warns(InferSimWarning, match=r"unknown model_type 'falcon'.*gated FFN: False.*keys not read: alibi"):
        model_from_hf_config(cfg(model_type="falcon", alibi=True))


def test_context_past_max_position_warns():
    m = model_from_hf_config(cfg(max_position_embeddings=4096))
    with pytest.warns(InferSimWarning, match="s_kv 1,000,000 exceeds .*4,096"):
        m.check_context(1_000_000)
    with warnings.catch_warnings():
        warnings.simplefilter("error", InferSimWarning)
        m.check_context(4096)


# ----- the same through the CLI: exit 2, one error line, no traceback, quickly -------------------
def run_cli(*args, timeout=10):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run([sys.executable, "-m", "infersim.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env=env)


def one_error(p) -> str:
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    errors = [ln for ln in lines if ln.startswith("error:")]
    assert len(errors) == 1 and all(ln.startswith(("error:", "warning:")) for ln in lines), p.stderr
    return errors[0]


@pytest.mark.parametrize("name", ["nan", "1e400", "gpt2 n_head 0", "qwen2_moe width 0", "deep nesting",
                                  "name dict", "layers 1e12", "heads 2^40"])
def test_cli_bad_configs_exit_2_within_10_s(tmp_path, name):
    text, needle = BAD_TEXT[name]
    path = tmp_path / "config.json"
    path.write_text(text)
    assert needle in one_error(run_cli("simulate", "--config", str(path)))


def test_cli_bad_paths_exit_2(tmp_path):
    binary = tmp_path / "weights.bin"
    binary.write_bytes(b"\x00\xff" * 100)
    for path, needle in (("/dev/zero", "larger than 4 MiB"), (str(tmp_path), "is a directory"),
                         (str(binary), "not UTF-8")):
        assert needle in one_error(run_cli("simulate", "--config", path))


def test_cli_dtype_model_and_context_edges(tmp_path):
    assert "weight dtype must not be empty" in one_error(run_cli("simulate", "--weight-dtype", ""))
    path = tmp_path / "config.json"
    path.write_text(cfg(max_position_embeddings=4096))
    p = run_cli("simulate", "--config", str(path), "--model", "Llama 2 7B", "--json", timeout=60)
    assert p.returncode == 0 and "warning: --config" in p.stderr and "--model 'Llama 2 7B' is ignored" in p.stderr
    p = run_cli("simulate", "--model", "Llama 2 7B", "--s-kv", "1000000", "--tp", "8", "--json", timeout=60)
    assert p.returncode == 0 and "exceeds Llama 2 7B's max_position_embeddings (4,096)" in p.stderr
    assert json.loads(p.stdout)["total_latency_ns"] > 0


def test_chunked_layers_without_a_chunk_size_warn():
    l4 = json.dumps({**QWEN_MOE, "model_type": "llama4_text", "num_local_experts": 8, "num_hidden_layers": 4,
                     "attention_chunk_size": None, "intermediate_size_mlp": 512})
    with pytest.warns(InferSimWarning, match="attention_chunk_size is not set"):
        assert model_from_hf_config(l4).layer_types == ()


def test_with_dtypes_sets_experts_too_unless_told():
    m = model_from_hf_config(json.dumps({**QWEN_MOE, "quantization_config": {
        "quant_method": "mxfp4", "modules_to_not_convert": ["model.layers.*.self_attn"]}}))
    assert (m.weight_dtype, m.expert_dtype) == ("bf16", "mxfp4")
    assert m.with_dtypes(act="fp8").expert_dtype == "mxfp4"                # weight untouched
    assert m.with_dtypes(weight="fp8").expert_dtype == "fp8"               # every weight
    both = m.with_dtypes(weight="fp8", expert="fp4")
    assert (both.weight_dtype, both.expert_dtype, both.expert_gemm_dtype) == ("fp8", "fp4", "bf16")
    assert m.with_dtypes(expert="fp4", act="fp4").expert_gemm_dtype == "fp4"


def test_small_models_keep_family_patterns():
    """A 2-layer Gemma 3 / Llama 4 keeps the class's pattern (6 / 4) even though it is longer."""
    g3 = model_from_hf_config(cfg(model_type="gemma3_text", num_hidden_layers=2, head_dim=64,
                                      sliding_window=512))
    assert g3.layer_types == ("sliding", "sliding") and g3.tied_embeddings
    l4 = model_from_hf_config(json.dumps({**QWEN_MOE, "model_type": "llama4_text", "num_local_experts": 8,
                                              "num_hidden_layers": 2, "intermediate_size_mlp": 512,
                                              "shared_expert_intermediate_size": None}))
    assert l4.layer_types == ("chunked", "chunked") and l4.n_shared_experts == 1
