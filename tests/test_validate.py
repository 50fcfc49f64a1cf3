"""Validation and calibration against published measurements (docs/validation.md)."""
import json
import math

import numpy as np
import pytest

from infersim.cli import main
from infersim.cost.bands import band_for
from infersim.cost.bands import table as band_table_stored
from infersim.hardware_presets import HW_PRESETS
from infersim.runtime import BOUNDS, RUNTIMES
from infersim.specs.efficiency import EFF_BOUNDS, TABLE_OF
from infersim.validation.bands import band_table, calibrated_quantile, row_regime
from infersim.validation.data import published
from infersim.validation.fit import PARAMS, hardware_for, runtime_for, stored_params
from infersim.validation.rows import DTYPES, predict
from infersim.validation.validate import MEASUREMENTS, SOURCES, exclusion, harness, run_validation, runtime_of


@pytest.fixture(scope="module")
def report():
    return run_validation()


def test_rows_are_sourced_and_exclusions_explained():
    assert len(MEASUREMENTS) >= 400
    assert all(r.source in SOURCES and r.value > 0 for r in MEASUREMENTS)
    assert all(SOURCES[r.source].runtime in RUNTIMES for r in MEASUREMENTS)
    assert {s.split for s in SOURCES.values()} <= {"used", "excluded"}
    assert all(exclusion(r) for r in MEASUREMENTS if SOURCES[r.source].split == "excluded")
    assert len({r.id for r in MEASUREMENTS}) == len(MEASUREMENTS)        # no row twice


def test_rows_carry_their_quantisers_head_dtype():
    """gpt-fast quantises every Linear (its int8 rows stream an int8 LM head); ModelOpt-built
    TensorRT-LLM fp8 engines keep it bf16; llama.cpp's Q4_0 files carry a Q6_K output (int8 here)."""
    def heads(source, dtypes):
        return {r.model_spec.head_dtype for r in MEASUREMENTS if r.source == source and r.dtypes == dtypes}
    assert heads("gptfast_readme", "int8wo") == {"int8"}
    assert heads("gptfast_readme", "16") == {"bf16"}
    assert heads("trtllm_perf_overview_v0.17", "fp8") == {"bf16"}
    assert heads("llamacpp_pr4766_rtx4090_llamabench", "int4wo") == {"int8"}


def test_harness_equals_the_public_api_at_random_parameters():
    """The fit's re-combination of cached terms is the cost model itself, row by row (every
    context-parallel row included: their exposed ring is decomposed too, not priced slowly; and
    finite runs, whose last wave is a step of its own)."""
    cp_rows = [r for r in MEASUREMENTS if r.cp > 1]
    runs = [r for r in MEASUREMENTS if r.requests][::30]         # finite runs: their last wave too
    assert len(cp_rows) >= 10 and len(runs) >= 20
    h = harness(MEASUREMENTS[::9] + cp_rows + runs)
    assert not h.slow
    rng = np.random.default_rng(7)
    for _ in range(2):
        params = {p.name: p.lo + rng.random() * (p.hi - p.lo) for p in PARAMS}
        fast = h.predict(params)
        for i, row in enumerate(h.rows):
            batch = None if row.batching == "static" else h.row_batch[i]
            slow = predict(row, hardware_for(row.hw, params), runtime_for(runtime_of(row), params), batch=batch)
            assert fast[i] == pytest.approx(slow, rel=1e-9, nan_ok=True), row.id


def test_presets_carry_the_in_sample_fit(report):
    """calibration.toml is the fit on every source (regenerate: infersim validate --write-calibration)."""
    stored = stored_params()
    for p in PARAMS:
        assert stored[p.name] == pytest.approx(report.params[p.name], rel=0.02, abs=2e-3 * (p.hi - p.lo)), p.name
    for r in report.rows[::23]:
        preset = predict(r.row, HW_PRESETS[r.row.hw], RUNTIMES[runtime_of(r.row)])
        assert preset == pytest.approx(r.predicted_fit, rel=0.03, nan_ok=True), r.row.id


def test_rows_moved_names_the_parameters_the_data_cannot_see(report):
    """TensorRT-LLM's batch manager schedules the next step while the device runs (host_overlap 1):
    its per-step host cost is hidden under any device step of the validation rows, so no row
    depends on it; HBM streaming on Hopper moves hundreds of rows. An A100 has no fp8 tensor cores."""
    moved = report.moved
    assert set(moved) == {p.name for p in PARAMS}
    assert moved["trtllm.step_fixed_ns"] == 0 and moved["ampere.compute_fp8"] == 0
    assert moved["hopper.memory"] > 300 and moved["gpu.kernel_gap_ns"] > 500
    assert all(0 <= k <= len(report.scored()) for k in moved.values())


def test_every_fitted_parameter_is_physically_plausible(report):
    for params in (report.params, stored_params()):
        for p in PARAMS:
            assert p.lo <= params[p.name] <= p.hi, p.name
    for name in HW_PRESETS:
        hw = HW_PRESETS[name]
        for kind, (lo, hi) in EFF_BOUNDS.items():
            table = getattr(hw, TABLE_OF[kind])
            if table:
                assert lo <= max(e for _, e in table) <= hi, (name, kind)
    for rt in RUNTIMES.values():
        for f, (lo, hi) in BOUNDS.items():
            assert lo <= getattr(rt, f) <= hi, (rt.name, f)


def test_loso_beats_no_calibration(report):
    assert report.median_abs_error("loso") < report.median_abs_error("prior")
    assert report.median_abs_error("fit") <= report.median_abs_error("loso") + 0.005
    assert {s["source"] for s in report.by_source()} == {r.source for r in MEASUREMENTS}


def test_bands_are_the_reports_and_cover_held_out_rows(report):
    """cost/bands.json is this report's band table (regenerate: infersim validate --write-bands);
    a band built without a source holds about 80% of that source's rows."""
    p, cov = calibrated_quantile(report.scored())
    fresh = band_table(report.scored(), p)
    stored = band_table_stored()
    assert set(fresh) == set(stored)
    for k, b in fresh.items():
        assert stored[k]["rows"] == b["rows"] and stored[k]["lo"] == pytest.approx(b["lo"], rel=0.02), k
    assert 0.75 <= cov <= 0.85
    r = report.scored()[0]
    assert band_for(row_regime(r)).lo < 1.0 < band_for(row_regime(r)).hi


def test_cli_validate_json_and_docs(capsys, tmp_path):
    out = tmp_path / "v.md"
    assert main(["validate", "--quick", "--json", "--write-docs", str(out)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["rows"]) == len(MEASUREMENTS) and doc["sources"] >= 15
    text = out.read_text()
    assert "Leave-one-source-out" in text and "trtllm_perf_v0.9.0" in text and "## By regime" in text
    assert main(["validate", "--quick", "--write-docs", str(tmp_path / "missing" / "v.md")]) == 2


def test_default_runtime_near_the_hbm_floor_and_eager_slower():
    """Llama 3.1 8B batch-1 decode at 4K on one H100 runs at 1.0-1.6x the HBM floor; eager is
    slower than graph capture."""
    from infersim import Parallelism, Workload, simulate
    from infersim.model_presets import PRESETS

    m, hw = PRESETS["Llama 3.1 8B"].model, HW_PRESETS["H100-SXM x8"]
    floor = (m.weight_bytes() + 4096 * m.kv_bytes_per_token) / hw.bw_hbm_gbs
    wl = Workload("decode", s_kv=4096)
    graphs = simulate(m, hw, Parallelism(), wl)
    eager = simulate(m, hw, Parallelism(), wl, runtime="eager").total_latency_ns
    assert 1.0 <= graphs.total_latency_ns / floor <= 1.6
    assert eager > graphs.total_latency_ns
    lo, hi = graphs.latency_band_ns
    assert lo < graphs.total_latency_ns < hi


def test_published_lines_are_measurements_or_say_why():
    """Every line of validation/data/published.jsonl is a scored-or-excluded Measurement, or is
    listed with the reason infersim cannot express it; a total (input + output) rate is
    compared as output tokens/s = total · osl / (isl + osl)."""
    from infersim.validation.validate import NOT_EXPRESSED

    lines = published.read()
    pub = [r for r in MEASUREMENTS if r.source in {d["source"] for d in lines}]
    assert len(pub) + len(NOT_EXPRESSED) == len(lines) > 0
    assert all(why for _, why in NOT_EXPRESSED)
    d = {"batching": "continuous", "metric": "tok_s_total", "value": 3000.0, "isl": 1000, "osl": 500}
    assert published._metric(d) == ("tok_s_total", 1000.0, "")
    assert published.runtime_of_engine("rocm/vllm:rocm7.0.0_vllm_0.11.1") == "vllm-0.13"
    assert published.runtime_of_engine("no such engine") == ""


def test_fp4_weights_with_a_16_bit_kv_cache_are_expressed():
    """NVFP4 weights beside a bf16 KV cache (TensorRT-LLM's DeepSeek-R1 at concurrency 3072,
    torchao's NVFP4 Llama on vLLM) are a dtype mix of their own: fp4 GEMMs, a 2-byte cache; a mix
    still unmodelled (int4 weights with an int8 cache) is listed, not guessed."""
    assert published.dtype_code({"weights_dtype": "fp4", "kv_dtype": "bf16"}) == "fp4kv16"
    assert DTYPES["fp4kv16"] == ("fp4", "fp4", "bf16") and DTYPES["fp4"] == ("fp4", "fp4", "fp8")
    assert published.dtype_code({"weights_dtype": "int4", "kv_dtype": "int8"}) is None
    rows = {r.dtypes: r for r in MEASUREMENTS if r.source == "trtllm_blog_dsr1_bestperf" and r.hw == "B200 x8"}
    assert rows["fp4ffnkv16"].batch == 3072 and not exclusion(rows["fp4ffnkv16"])


def test_deepseek_nvfp4_checkpoints_keep_bf16_attention_projections():
    """NVIDIA's DeepSeek-R1-FP4 / R1-0528-FP4 quantise only the FFN and MoE layers (their
    hf_quant_config excludes every self_attn): the blog's B200 rows run the attention projections
    as bf16 GEMMs (weights bf16, activations fp4: the wider operand), the experts on fp4 tensor
    cores, and the 896-per-rank run at its measured 1,042-token mean input."""
    for kv, code in (("fp8", "fp4ffn"), ("bf16", "fp4ffnkv16")):
        assert published.dtype_code({"weights_dtype": "fp4", "kv_dtype": kv, "attn_weights_dtype": "bf16"}) == code
    rows = {r.dtypes: r for r in MEASUREMENTS if r.source == "trtllm_blog_dsr1_bestperf" and r.hw == "B200 x8"}
    assert set(rows) == {"fp4ffn", "fp4ffnkv16"}
    m = rows["fp4ffn"].model_spec
    assert (m.attn_proj_gemm_dtype, m.expert_gemm_dtype, m.kv_dtype) == ("bf16", "fp4", "fp8")
    assert rows["fp4ffn"].isl == 1042 and rows["fp4ffnkv16"].isl == 1024
    # bf16 projections hold 2 / 0.5625 the NVFP4 bytes (4 bits + an fp8 scale per 16): the
    # attention every DP rank replicates weighs 3.6x more
    fp4 = rows["fp4ffn"].model_spec.with_dtypes(attn="fp4")
    assert m.bytes_breakdown()["attention"] == pytest.approx(2 / 0.5625 * fp4.bytes_breakdown()["attention"])


@pytest.mark.parametrize("engine, profile", [
    ("vllm 0.7.3", "vllm-v0"), ("rocm/vllm 0.7.3.dev138+g21f6ca217 (rocm/vllm-dev)", "vllm-v0"),
    ("vllm main (Oct 2024, V0 engine)", "vllm-v0"), ("vllm 0.8.0", "vllm-0.13"),
    ("rocm/vllm:rocm6.4.1_vllm_0.9.0.1_20250605", "vllm-0.13"),    # the ROCm version is not vLLM's
    ("vllm 0.13.0 (torch 2.9.0)", "vllm-0.13"), ("vllm 0.14.1 (CUDA 13.0)", "vllm"), ("vllm 0.21.0", "vllm"),
    ("vllm (vllm/vllm-openai:cu130-nightly)", "vllm"), ("sglang 0.4.3.post2", "sglang-0.4"),
    ("sglang 0.4.5", "sglang"), ("sglang v0.5.12 (lmsysorg/sglang:v0.5.12-cu130)", "sglang"),
    ("sglang main ~v0.4.6 (May 2025)", "sglang")])
def test_engine_versions_map_to_their_era(engine, profile):
    """vLLM's V0 engine (< 0.8) and SGLang before 0.4.5 run the Triton fused-MoE kernels, vLLM
    0.8-0.13 schedules synchronously: a row is mapped to its era's profile by the version its
    engine string states, else to the current one."""
    assert published.runtime_of_engine(engine) == profile


def test_targets_by_hand():
    """The fidelity targets from hand-set LOSO errors: three rows (B200, MI300X, a 2-node H100
    row at batch 128) at +10%, −30% and +40% give those medians, and only they."""
    from dataclasses import replace

    from infersim.validation.docs import targets
    from infersim.validation.validate import Report, RowResult

    pick = lambda hw: next(r for r in MEASUREMENTS if r.hw == hw and not exclusion(r))  # noqa: E731
    b200, mi300x, h100 = pick("B200 x8"), pick("MI300X x8"), pick("H100-SXM x8")
    h100 = replace(h100, hw="H100-SXM 2x8 (IB)", tp=16)
    rows = [RowResult(r, r.value, r.value, r.value * (1.0 + e), True, batch=b)
            for r, e, b in ((b200, 0.10, 8), (mi300x, -0.30, 64), (h100, 0.40, 128))]
    got = {c: (v, ok) for c, v, _, ok in targets(Report(rows, stored_params()))}
    assert got["B200 rows, median abs. error"] == ("10.0% (1 rows)", True)
    assert got["MI300X rows, median abs. error"] == ("30.0% (1 rows)", False)
    assert got["multi-node rows, median abs. error"] == ("40.0% (1 rows)", False)
    assert got["batch >= 64, signed median"] == ("+5.0% (2 rows)", True)
    assert got["LOSO median abs. error"][1] is False          # 30% over 3 sources


def test_fit_loss_is_soft_l1_at_the_typical_miss():
    """The fit's residual transform: squares sum to 2·s²·(√(1 + (r/s)²) − 1) with s = 0.10 —
    quadratic for small misses, linear (≈ 2·s·|r|) for a source the model cannot express."""
    from infersim.validation.fit import LOSS_SCALE, soft_l1
    assert LOSS_SCALE == 0.10
    r = np.array([-0.5, -0.1, 0.0, 0.001, 0.1, 2.0])
    got = soft_l1(r)
    assert np.allclose(got ** 2, 2 * 0.01 * (np.sqrt(1 + (r / 0.1) ** 2) - 1))
    assert np.all(np.sign(got) == np.sign(r))
    assert got[4] == pytest.approx(math.sqrt(0.02 * (math.sqrt(2) - 1)))      # 0.0910 at r = s
    assert got[3] == pytest.approx(0.001, rel=1e-3)                             # small: r itself
    assert got[5] ** 2 == pytest.approx(2 * 0.1 * 2.0, rel=0.06)                # large: 2·s·|r|


def test_a_stated_concurrency_above_the_benchmark_cap_is_the_engines_own():
    """ROCm's offline benchmarks admit all 3,200 prompts (max_num_seqs = num_prompts): a stated
    concurrency above trtllm-bench's 2,048 is kept when its KV cache fits (Llama 3.1 70B FP8 on
    8x MI300X holds over 3,200 sequences of 2,176 tokens), while a maximum-throughput row (0)
    stays capped at 2,048 per replica."""
    from infersim.validation.rows import BATCH_CAP, Measurement, serving_batch

    hw, rt = HW_PRESETS["MI300X x8"], RUNTIMES["vllm"]
    stated = Measurement("syn", "Llama 3.1 70B", "MI300X x8", "fp8", 8, 3200, 128, 2048, "tok_s_total", 1.0,
                         batching="continuous")
    batch, cap = serving_batch(stated, hw, rt)
    assert batch == cap == 3200
    assert serving_batch(Measurement("syn", "Llama 3.1 70B", "MI300X x8", "fp8", 8, 0, 128, 2048, "tok_s_total",
                                     1.0, batching="continuous"), hw, rt) == (BATCH_CAP, BATCH_CAP)


def test_estimated_maxima_span_their_physical_range_and_clipping_counts_as_a_bound():
    from infersim.presets.hardware_presets import FAMILY_PRESETS, RAW_PRESETS
    from infersim.validation.fit import ESTIMATED, at_bound
    by_name = {p.name: p for p in PARAMS}
    l40s = RAW_PRESETS[FAMILY_PRESETS["ada"][0]]
    assert l40s.name == "L40S x8"
    p = by_name["ada.memory_fp8"]                 # L40S's 8-bit GEMV maximum is an estimate (0.55)
    assert (p.lo, p.hi) == (round(0.25 / 0.55, 3), round(0.95 / 0.55, 3))
    assert (by_name["hopper.memory_fp8"].lo, by_name["hopper.memory_fp8"].hi) == (0.6, 1.6)   # measured
    assert all(k in ("compute", "compute_fp8", "memory", "memory_fp8", "attn_compute", "attn_memory")
               for kinds in ESTIMATED.values() for k in kinds)
    prior = {q.name: q.prior_value for q in PARAMS}
    assert not [n for n in at_bound(prior) if n.split(".")[0] in FAMILY_PRESETS]   # maxima as measured
    # MI300X's fp8 GEMM maximum (0.47) x 0.64 is its physical floor (0.30): in range, yet stopped
    assert by_name["cdna3.compute_fp8"].lo < 0.64 and "cdna3.compute_fp8" in at_bound({**prior, "cdna3.compute_fp8": 0.3 / 0.47})
    assert "cdna3.compute_fp8" not in at_bound({**prior, "cdna3.compute_fp8": 0.8})
    from infersim.validation.fit import at_physical_limit
    assert at_physical_limit({**prior, "cdna3.compute_fp8": 0.3 / 0.47}) == ["cdna3.compute_fp8"]
    assert at_physical_limit({**prior, "hopper.compute": 0.7}) == []        # its range's floor, not a limit
