"""How much HBM may be used is the runtime's (mem_fraction), not the hardware's: fit verdicts,
searches and serving capacity follow the runtime; a hardware file may not carry it."""
from dataclasses import replace
from pathlib import Path

import pytest

from infersim import InferSimError, Parallelism, Workload, simulate
from infersim.auto_explore import auto_explore
from infersim.hardware_presets import get_hardware, read_hardware_file
from infersim.model_presets import get_model
from infersim.runtime import BOUNDS, RUNTIMES, get_runtime
from infersim.serving import Request
from infersim.serving.sla import max_batch
from infersim.specs.parallel import ParArrays

H100 = get_hardware("H100-SXM x8")


def test_capacity_is_runtime_fraction_of_device_hbm():
    m = get_model("Llama 3.1 8B")
    wl = Workload("decode", s_kv=4096)
    for name in RUNTIMES:
        rt = get_runtime(name)
        r = simulate(m, H100, Parallelism(tp=1), wl, runtime=rt)
        if rt.mem_basis == "total":
            assert r.mem_capacity_bytes == pytest.approx(rt.mem_fraction * 85.52e9)
        else:   # the fraction applies to what weights, workspace and the reserve leave
            fixed = r.mem_breakdown_bytes["weights"] + r.mem_breakdown_bytes["workspace"]
            free = 85.52e9 - rt.reserve_gb * 1e9 - fixed
            assert r.mem_capacity_bytes == pytest.approx(fixed + rt.mem_fraction * free)
        assert BOUNDS["mem_fraction"][0] <= rt.mem_fraction <= BOUNDS["mem_fraction"][1]


def test_fit_verdict_follows_the_runtime():
    """Llama 3.1 70B bf16 (141 GB of weights) on two H100s: 76.97 GB per PE usable at 0.90,
    72.69 GB at 0.85; some batch needs memory between the two and fits only the looser runtime."""
    m = get_model("Llama 3.1 70B")
    par = Parallelism(tp=2)
    tight = replace(get_runtime("cuda-graphs"), name="tight", mem_fraction=0.85)
    for batch in range(1, 64):
        wl = Workload("decode", s_kv=8192, batch=batch)
        a = simulate(m, H100, par, wl, runtime="cuda-graphs")
        b = simulate(m, H100, par, wl, runtime=tight)
        assert a.mem_per_pe_bytes == b.mem_per_pe_bytes          # memory need is the model's
        if a.fits and not b.fits:
            break
    else:
        pytest.fail("no batch separates a 0.90 from a 0.85 memory fraction")
    # the explorer drops what the tighter runtime cannot hold
    wl = Workload("decode", s_kv=8192, batch=batch)
    assert auto_explore(m, H100, wl, runtime=tight).n_fitting < auto_explore(m, H100, wl).n_fitting


def test_serving_capacity_scales_with_mem_fraction():
    m, req = get_model("Llama 3.1 8B"), Request(2048, 512)
    configs = ParArrays.from_configs([Parallelism(tp=1)], Workload("decode", s_kv=2560))
    roomy = replace(get_runtime(None), name="roomy", mem_fraction=0.95)
    assert max_batch(m, H100, configs, req, 4096, roomy)[0] > max_batch(m, H100, configs, req, 4096)[0]


def test_hardware_file_with_memory_fraction_is_refused(tmp_path):
    f = tmp_path / "chip.toml"
    f.write_text((Path(__file__).parent.parent / "docs/examples/mychip.toml").read_text() + "\nusable_mem_frac = 0.9\n")
    with pytest.raises(InferSimError, match="runtime's mem_fraction"):
        read_hardware_file(f)


def test_moe_efficiency_scales_the_routed_experts_only():
    """``moe_efficiency`` q: the routed experts' grouped GEMM takes 1/q as long in both phases
    (above its kernel floor; the GEMM ramp is the part's, not the kernel's quality), nothing else
    moves, and a dense model does not notice."""
    base = get_runtime("vllm")
    slow = replace(base, name="slow-moe", moe_efficiency=0.5)
    wl = Workload("decode", s_kv=2048, batch=32)
    moe = [simulate(get_model("Mixtral 8x7B"), H100, Parallelism(tp=8), wl, runtime=rt) for rt in (base, slow)]
    a, b = (r.op_times_ns for r in moe)
    ramp = 32 * 3 * H100.gemm_ramp_ns       # 32 MoE layers, 3 grouped-GEMM kernels each
    assert ramp > 0
    assert b["moe_experts"] - ramp == pytest.approx(2.0 * (a["moe_experts"] - ramp), rel=1e-12)
    assert {k: v for k, v in a.items() if k != "moe_experts"} == {k: v for k, v in b.items() if k != "moe_experts"}
    dense = [simulate(get_model("Llama 3.1 8B"), H100, Parallelism(tp=1), wl, runtime=rt) for rt in (base, slow)]
    assert dense[0].total_latency_ns == dense[1].total_latency_ns
    with pytest.raises(InferSimError, match="moe_efficiency"):
        replace(base, moe_efficiency=1.5)
    assert get_runtime("vllm-v0").moe_efficiency < 1.0 == get_runtime("vllm").moe_efficiency


def test_runtime_memory_fraction_is_bounded():
    with pytest.raises(InferSimError, match="mem_fraction"):
        replace(get_runtime(None), mem_fraction=1.2)
