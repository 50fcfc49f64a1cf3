"""The cost model on sliding / chunked attention, interleaved MoE layers and quantised experts:
closed forms against brute force, KV memory and reads against hand-computed windows, pipeline
stages against the layer mask, expert bytes in the expert dtype."""
import dataclasses
import warnings
from pathlib import Path

import numpy as np
import pytest

from infersim import InferSimError, InferSimWarning, ModelSpec, Parallelism, Workload, simulate
from infersim.cost.pipeline import stage_layers
from infersim.hardware_presets import get_hardware
from infersim.loaders.hf_model import model_from_hf_config
from infersim.model_presets import get_model
from infersim.specs.model import DTYPE_BYTES

FIX = Path(__file__).parent / "fixtures" / "hf_configs"
H100 = get_hardware("H100-SXM x8")


def load(file: str) -> ModelSpec:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InferSimWarning)
        return model_from_hf_config(FIX / file)


def brute_pairs(kind: str, window: int, prefix: int, new: int) -> int:
    """Σ over the new queries of the keys each sees (1-based positions, causal)."""
    total = 0
    for j in range(prefix + 1, prefix + new + 1):
        if kind == "full":
            total += j
        elif kind == "sliding":
            total += min(j, window)
        else:                                  # chunked: keys of its own chunk up to itself
            total += (j - 1) % window + 1
    return total


@pytest.mark.parametrize("kind", ["full", "sliding", "chunked"])
@pytest.mark.parametrize("prefix,new", [(0, 1000), (0, 37), (300, 700), (4000, 513), (5, 8192)])
def test_prefill_pairs_closed_form_matches_brute_force(kind, prefix, new):
    window = 256
    m = dataclasses.replace(get_model("Llama 3.1 8B"), n_layers=2, layer_types=(kind, kind),
                            sliding_window=window if kind == "sliding" else 0,
                            attention_chunk_size=window if kind == "chunked" else 0)
    assert m.attention_pairs(prefix, new) == 2 * brute_pairs(kind, window, prefix, new)


def test_decode_keys_per_layer_kind():
    m = dataclasses.replace(get_model("Llama 3.1 8B"), n_layers=3,
                            layer_types=("full", "sliding", "chunked"), sliding_window=4096,
                            attention_chunk_size=8192)
    # full 100000 + sliding 4096 + chunked past its first chunk: the mean over a chunk, 4096
    assert m.attention_pairs(100_000, 1) == 100_000 + 4096 + 4096
    assert m.attention_pairs(3000, 1) == 3 * 3000          # inside every window: all keys


def _full(m: ModelSpec) -> ModelSpec:
    return dataclasses.replace(m, layer_types=(), sliding_window=0, attention_chunk_size=0)


def test_mistral_sliding_window_caps_kv_cache_and_decode_reads():
    """Mistral 7B v0.1 slides every layer over 4096 tokens: at 32K context its cache and its
    decode attention reads are 4096/32768 = 1/8 of a full-attention model of the same shape."""
    m = get_model("Mistral 7B")
    assert m.sliding_window == 4096
    wl, par = Workload(mode="decode", s_kv=32768, batch=8), Parallelism(tp=1)
    win, full = simulate(m, H100, par, wl), simulate(_full(m), H100, par, wl)
    assert win.mem_breakdown_bytes["kv_cache"] == pytest.approx(full.mem_breakdown_bytes["kv_cache"] / 8)
    # full layers read 8 seqs x 32768 tokens x 8 KV heads x 256 (K and V) x 2 B in each of
    # the 32 layers; the windowed model reads 1/8 of that, everything else is equal
    kv_read_full = 32 * 8 * 32768 * 8 * 256 * 2
    assert full.op_bytes["attention"] - win.op_bytes["attention"] == pytest.approx(7 / 8 * kv_read_full)
    assert win.total_latency_ns < full.total_latency_ns


def test_gemma2_prefill_attention_flops_follow_the_window():
    """Gemma 2 9B: half the layers slide over 4096. A 32K prompt's pairs per layer average
    (full causal + windowed) / 2; attention flops scale by exactly that ratio."""
    m = load("google__gemma-2-9b-it.json")
    wl, par = Workload(mode="prefill", s_kv=32768), Parallelism(tp=8)
    win, full = simulate(m, H100, par, wl), simulate(_full(m), H100, par, wl)
    T, W = 32768, 4096
    causal = T * (T + 1) / 2
    windowed = W * (W + 1) / 2 + (T - W) * W
    assert win.op_flops["attention"] / full.op_flops["attention"] == pytest.approx((causal + windowed) / 2 / causal)
    assert win.mem_breakdown_bytes["kv_cache"] <= 0.6 * full.mem_breakdown_bytes["kv_cache"]


def test_llama4_maverick_stages_count_the_interleaved_moe_layers():
    m = load("meta-llama__llama-4-maverick-17b-128e-instruct.json")
    mask = np.array(m.moe_layer_mask)
    assert m.moe_layer_step == 2 and mask.sum() == 24
    for pp in (1, 2, 3, 4, 6, 8):
        first, last = stage_layers(m, np.array([float(pp)]))["moe"]
        n = m.n_layers // pp
        assert first[0] == mask[:n].sum() and last[0] == mask[-n:].sum()
    # 48 layers over pp = 5: 9.6 layers a stage, fractional layers counted pro rata
    first, last = stage_layers(m, np.array([5.0]))["moe"]
    assert first[0] == pytest.approx(mask[:9].sum() + 0.6 * mask[9])
    assert last[0] == pytest.approx(mask[-9:].sum() + 0.6 * mask[-10])


def test_deepseek_first_k_dense_stage_split_unchanged():
    """DeepSeek-V3: 3 dense layers first; PP 4 puts them all in the first stage."""
    m = get_model("DeepSeek-V3")
    stages = stage_layers(m, np.array([4.0]))
    assert stages["dense"][0][0] == pytest.approx(3.0) and stages["dense"][1][0] == pytest.approx(0.0)
    assert stages["moe"][0][0] == pytest.approx(61 / 4 - 3) and stages["moe"][1][0] == pytest.approx(61 / 4)


def test_gpt_oss_experts_stream_in_mxfp4():
    """gpt-oss-120b's routed experts are MXFP4 (0.53125 B/param with scales): the expert GEMM
    reads and the per-PE expert weights use that size, attention stays bf16."""
    m = load("openai__gpt-oss-120b.json")
    as_bf16 = m.with_dtypes(expert="bf16")
    wl, par = Workload(mode="decode", s_kv=4096, batch=1), Parallelism(tp=8)
    q, b = simulate(m, H100, par, wl), simulate(as_bf16, H100, par, wl)
    ratio = DTYPE_BYTES["mxfp4"] / DTYPE_BYTES["bf16"]
    act = lambda r: r.op_bytes["moe_experts"]  # noqa: E731
    # activations are a tiny part of the expert op at batch 1
    assert act(q) / act(b) == pytest.approx(ratio, rel=0.01)
    assert q.op_bytes["qkv_proj"] == b.op_bytes["qkv_proj"]
    assert q.mem_breakdown_bytes["weights"] < 0.35 * b.mem_breakdown_bytes["weights"]
    # one H100 (memory aside): the expert reads dominate and shrink with the dtype
    one = Parallelism(tp=1)
    assert simulate(m, H100, one, wl).total_latency_ns < 0.8 * simulate(as_bf16, H100, one, wl).total_latency_ns


def test_fp8_context_fmha_runs_prompt_attention_in_fp8_only_with_an_fp8_kv_cache():
    """TensorRT-LLM's fp8 context FMHA (the trtllm profile): with an fp8 KV cache the prefill
    attention computes at the fp8 rate (FlashAttention-3's fp8/bf16 ratio, ~1.6x faster when
    compute-bound); decode attention, a 16-bit KV cache and other runtimes are unchanged, and the
    fit's harness sees the same model as simulate()."""
    from dataclasses import replace as _replace

    from infersim.cost import FP8_ATTN_EFF
    from infersim.runtime import get_runtime

    m = get_model("Llama 3.1 70B").with_dtypes(weight="fp8", kv="fp8")
    par = Parallelism(tp=8)
    pre = Workload("prefill", s_kv=32768, batch=1)
    t = {rt: simulate(m, H100, par, pre, rt).op_times_ns["attention"] for rt in ("trtllm", "vllm")}
    assert t["trtllm"] < t["vllm"] / 1.4
    assert H100.speedup("fp8") * FP8_ATTN_EFF == pytest.approx(1.62)
    dec = Workload("decode", s_kv=4096, batch=64)
    assert simulate(m, H100, par, dec, "trtllm").op_times_ns["attention"] == pytest.approx(
        simulate(m, H100, par, dec, "vllm").op_times_ns["attention"])
    bf16_kv = get_model("Llama 3.1 70B").with_dtypes(weight="fp8")
    assert simulate(bf16_kv, H100, par, pre, "trtllm").op_times_ns["attention"] == pytest.approx(
        simulate(bf16_kv, H100, par, pre, "vllm").op_times_ns["attention"])
    rt = get_runtime("trtllm")
    assert rt.fp8_context_fmha and not get_runtime("vllm").fp8_context_fmha
    assert rt.model_for(m).fp8_context_attention and rt.model_for(bf16_kv) is bf16_kv
    off = _replace(rt, fp8_context_fmha=False)
    assert simulate(m, H100, par, pre, off).op_times_ns["attention"] == pytest.approx(t["vllm"], rel=0.05)


def test_trtllm_runs_a_sliding_window_model_with_its_full_context():
    """TensorRT-LLM keeps every token unless max_attention_window is given (trtllm-bench gives
    none): Mistral 7B v0.1's 4,096-token window holds for vLLM, not for the trtllm profiles.
    KV cache at 32 sequences of 20,000 tokens, fp8: 32 · 20,000 · 32 layers · 8 heads · 128 · 2
    bytes (TensorRT-LLM) against 32 · 4,096 · ... (vLLM); decode attention reads it all."""
    from infersim.loaders.runtime_files import runtime_from_mapping
    from infersim.runtime import get_runtime

    m = get_model("Mistral 7B").with_dtypes(weight="fp8", kv="fp8")
    wl = Workload("decode", s_kv=20000, batch=32)
    r = {rt: simulate(m, H100, Parallelism(tp=1), wl, rt) for rt in ("trtllm", "trtllm-2023", "vllm", "sglang")}
    per_token = 32 * 8 * 128 * 2
    assert r["trtllm"].mem_breakdown_bytes["kv_cache"] == pytest.approx(32 * 20000 * per_token, rel=1e-9)
    assert r["trtllm-2023"].mem_breakdown_bytes["kv_cache"] == pytest.approx(32 * 20000 * per_token, rel=1e-9)
    for rt in ("vllm", "sglang"):
        assert r[rt].mem_breakdown_bytes["kv_cache"] == pytest.approx(32 * 4096 * per_token, rel=1e-9)
    assert r["trtllm"].op_bytes["attention"] > 4.8 * r["vllm"].op_bytes["attention"]
    # the same as a model without the window; a model without sliding layers is left alone
    full = dataclasses.replace(m, layer_types=(), sliding_window=0, fp8_context_attention=True)
    assert get_runtime("trtllm").model_for(m) == full
    llama4 = get_model("Llama 4 Scout 17B-16E")
    assert get_runtime("trtllm").model_for(llama4) is llama4 and get_runtime("vllm").model_for(m) is m
    with pytest.raises(InferSimError, match="sliding_window must be true or false, got 'no'"):
        runtime_from_mapping({"name": "x", "base": "trtllm", "sliding_window": "no"}, "x.toml", get_runtime)
